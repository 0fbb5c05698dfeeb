#ifndef CONFAB_LIBFUZZER_DRIVER_H
#define CONFAB_LIBFUZZER_DRIVER_H

/// Runs libFuzzer's driver on the target's LLVMFuzzerTestOneInput. Each fuzzer executable
/// calls this from its `<Target>_main` entry (see Fuzz/README.md for why).
int confab_run_libfuzzer(int argc, char **argv);

/// Brackets the making of state that lives for the whole run (templates built once in
/// LLVMFuzzerInitialize): LeakSanitizer ignores what is allocated in between. Swift keeps
/// enum tags in a pointer's spare bits, so an object held only through such an enum in a
/// global looks unreachable to it and would be reported as a leak when the run ends.
/// No-ops when the binary has no LeakSanitizer.
void confab_leak_check_pause(void);
void confab_leak_check_resume(void);

#endif
