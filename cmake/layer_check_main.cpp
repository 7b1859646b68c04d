// Linked with one engine layer whole (every object of its archive) and the layers below it, nothing above: a
// layer that calls up a layer leaves an undefined reference here and the build fails (engine/CMakeLists.txt).
int main()
{
    return 0;
}
