#!/bin/sh
# calls.sh [OBJDIR | FILE.o...]: check that no two object files call each
# other in a loop.
#
# From the .o files named, or those of OBJDIR (default build/obj/engine,
# what `make` builds of src/engine), with nm: file A calls file B when A
# leaves undefined (U) a function B defines (T). Prints the file graph
# ("a -> b c"), then one line per cycle found ("call cycle: a -> b -> a"),
# and exits 1 when there is one (2: no object files). A file calling
# itself is no cycle; every strongly connected group of files shows at
# least one of its cycles. sh, nm and awk.
set -u
if [ $# -le 1 ] && [ -d "${1:-build/obj/engine}" ]; then
    DIR=${1:-build/obj/engine}
    set -- "$DIR"/*.o
fi
[ $# -gt 0 ] && [ -e "$1" ] || { echo "calls.sh: no object files (${1:-none})" >&2; exit 2; }
for o in "$@"; do
    [ -f "$o" ] || { echo "calls.sh: no object file $o" >&2; exit 2; }
done

# "file T sym" and "file U sym" lines; nm -P: "sym type [value size]".
for o in "$@"; do
    f=$(basename "$o" .o)
    nm -P "$o" | awk -v f="$f" '$2 == "T" || $2 == "U" { print f, $2, $1 }'
done | awk '
    $2 == "T" { def[$3] = $1; files[$1] = 1; next }
    { use[++n] = $1 " " $3; files[$1] = 1 }
    END {
        for (i = 1; i <= n; i++) {
            split(use[i], p, " ")
            to = def[p[2]]
            if (to == "" || to == p[1] || ((p[1], to) in edge))
                continue
            edge[p[1], to] = 1
            adj[p[1]] = adj[p[1]] " " to
        }
        nf = 0
        for (f in files)
            names[++nf] = f
        # Sorted, so that the graph and the cycles read the same every run.
        for (i = 2; i <= nf; i++)
            for (j = i; j > 1 && names[j - 1] > names[j]; j--) {
                t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
            }
        for (i = 1; i <= nf; i++) {
            f = names[i]
            if (adj[f] != "")
                print f " ->" sortwords(adj[f])
        }
        for (i = 1; i <= nf; i++)
            if (!color[names[i]])
                visit(names[i], 0)
        exit bad
    }
    function sortwords(s,    w, k, m, i, j, t, out) {
        m = split(s, w, " ")
        for (i = 2; i <= m; i++)
            for (j = i; j > 1 && w[j - 1] > w[j]; j--) {
                t = w[j]; w[j] = w[j - 1]; w[j - 1] = t
            }
        for (i = 1; i <= m; i++)
            out = out " " w[i]
        return out
    }
    # Depth first; an edge back to a file on the stack closes a cycle.
    function visit(f, depth,    w, m, i, j, c) {
        color[f] = 1
        stack[depth] = f
        m = split(sortwords(adj[f]), w, " ")
        for (i = 1; i <= m; i++) {
            if (color[w[i]] == 1) {
                for (j = 0; stack[j] != w[i]; j++)
                    ;
                c = w[i]
                for (j++; j <= depth; j++)
                    c = c " -> " stack[j]
                print "call cycle: " c " -> " w[i]
                bad = 1
            } else if (!color[w[i]]) {
                visit(w[i], depth + 1)
            }
        }
        color[f] = 2
    }
'
