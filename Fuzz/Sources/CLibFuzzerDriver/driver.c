#include "CLibFuzzerDriver.h"

#include <stddef.h>
#include <stdint.h>

// Provided by libFuzzer (-sanitize=fuzzer) and by the Swift target (@_cdecl) respectively.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int confab_run_libfuzzer(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
