// Placeholder entry point while the CLI is being written.
#include <cstdio>
int main() { std::puts("rtscope"); return 0; }
