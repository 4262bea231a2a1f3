#include "serve/serve.h"

int main(int argc, char **argv) { return serve_main(argc - 1, argv + 1); }
