/* The program of the per-layer link check (src/CMakeLists.txt): it calls
 * nothing; linking a layer's archive whole into it is the test. */
int main(void);
int main(void) { return 0; }
