#ifndef CONFAB_LIBFUZZER_DRIVER_H
#define CONFAB_LIBFUZZER_DRIVER_H

/// Runs libFuzzer's driver on the target's LLVMFuzzerTestOneInput. Each fuzzer executable
/// calls this from its `<Target>_main` entry (see Fuzz/README.md for why).
int confab_run_libfuzzer(int argc, char **argv);

#endif
