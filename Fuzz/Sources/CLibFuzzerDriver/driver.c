#include "CLibFuzzerDriver.h"

#include <stddef.h>
#include <stdint.h>

// Provided by libFuzzer (-sanitize=fuzzer) and by the Swift target (@_cdecl) respectively.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
// LeakSanitizer's interface (sanitizer/lsan_interface.h), weak so a build without it links.
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

int confab_run_libfuzzer(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

void confab_leak_check_pause(void) {
    if (__lsan_disable) __lsan_disable();
}

void confab_leak_check_resume(void) {
    if (__lsan_enable) __lsan_enable();
}
