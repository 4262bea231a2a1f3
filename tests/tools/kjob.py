#!/usr/bin/env python3
"""kjob.py MANIFEST JOB WHAT [--sub OLD=NEW]...: read a Kubernetes Job from
a manifest (deploy/kubernetes/) so that a test can run its pods' command
lines on one machine, as they are written there.

WHAT:
  info  "COMPLETIONS PARALLELISM CLAIM MOUNT" of the Job's single container
        (the persistent volume claim it mounts and where)
  env   the container's environment, one NAME=VALUE a line, values from
        fieldRef resolved against the pod template's metadata
  argv  the container's command + args, each followed by a NUL, after the
        substitutions: each --sub OLD=NEW replaces every OLD in the args;
        an OLD found nowhere is an error (the manifest changed: the test
        must follow it)

Exit 0, or 3 with one line on stderr when the manifest is not as expected.
"""
import re
import sys

import yaml


def die(msg):
    sys.stderr.write("kjob.py: %s\n" % msg)
    sys.exit(3)


def find_job(path, name):
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    for d in docs:
        if d.get("kind") == "Job" and d.get("metadata", {}).get("name") == name:
            return d
    die("%s has no Job named %s" % (path, name))


def container(job):
    cs = job["spec"]["template"]["spec"].get("containers", [])
    if len(cs) != 1:
        die("Job %s has %d containers, expected 1" % (job["metadata"]["name"], len(cs)))
    return cs[0]


def field(meta, path):
    """metadata.annotations['k'] / metadata.labels['k'] / metadata.name"""
    m = re.fullmatch(r"metadata\.(annotations|labels)\['([^']+)'\]", path)
    if m:
        v = meta.get(m.group(1), {}).get(m.group(2))
    elif path == "metadata.name":
        v = meta.get("name")
    else:
        die("fieldRef %s is not one this tool resolves" % path)
    if v is None:
        die("fieldRef %s names nothing in the pod template" % path)
    return str(v)


def main(argv):
    if len(argv) < 4:
        die("usage: kjob.py MANIFEST JOB info|env|argv [--sub OLD=NEW]...")
    job = find_job(argv[1], argv[2])
    what, rest = argv[3], argv[4:]
    c = container(job)
    spec = job["spec"]
    tmpl = spec["template"]
    if what == "info":
        mounts = c.get("volumeMounts", [])
        vols = {v["name"]: v for v in tmpl["spec"].get("volumes", [])}
        if len(mounts) != 1 or mounts[0]["name"] not in vols:
            die("Job %s: expected one volume mount of a declared volume" % argv[2])
        claim = vols[mounts[0]["name"]].get("persistentVolumeClaim", {}).get("claimName", "-")
        print(spec.get("completions", 1), spec.get("parallelism", 1), claim, mounts[0]["mountPath"])
    elif what == "env":
        meta = tmpl.get("metadata", {})
        for e in c.get("env", []):
            if "value" in e:
                v = str(e["value"])
            else:
                v = field(meta, e["valueFrom"]["fieldRef"]["fieldPath"])
            print("%s=%s" % (e["name"], v))
    elif what == "argv":
        args = [str(a) for a in c.get("args", [])]
        while rest:
            if rest[0] != "--sub" or len(rest) < 2 or "=" not in rest[1]:
                die("bad substitution arguments: %s" % " ".join(rest))
            old, new = rest[1].split("=", 1)
            if not any(old in a for a in args):
                die("Job %s: '%s' is not in its command line any more" % (argv[2], old))
            args = [a.replace(old, new) for a in args]
            rest = rest[2:]
        for a in [str(x) for x in c.get("command", [])] + args:
            sys.stdout.write(a + "\0")
    else:
        die("unknown WHAT %s" % what)


if __name__ == "__main__":
    main(sys.argv)
