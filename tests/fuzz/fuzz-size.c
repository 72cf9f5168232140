/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz size_eval() and quantity_parse(). The first byte of the input picks the RAM and page size
 * (small and large machines, 4 KiB to 64 KiB pages, a RAM size that is not a power of two); the
 * rest is the expression. A size that evaluates is a positive whole number of pages; an error
 * always comes with a reason. */
#include "policy/policy.h"
#include "policy/size.h"
#include "fuzz.h"

int fuzz_size_one(const uint8_t *data, size_t size) {
        static const struct {
                uint64_t ram, page_size;
        } machines[] = {
                { 16 * GiB, 4096 },
                { 8 * GiB, 16384 },
                { 512 * MiB, 65536 },
                { 16608080 * KiB, 16384 },      /* a Pi 5's MemTotal */
                { 8192, 4096 },                 /* two pages */
                { UINT64_MAX - (UINT64_MAX % 4096), 4096 },
                { 1, 4096 },
                { 3 * TiB + 7, 4096 },
        };

        if (size == 0 || size > 4096)
                return 0;
        uint64_t ram = machines[data[0] % ELEMENTSOF(machines)].ram;
        uint64_t page_size = machines[data[0] % ELEMENTSOF(machines)].page_size;

        char *s = malloc(size);
        FUZZ_ASSERT(s);
        memcpy(s, data + 1, size - 1);
        s[size - 1] = 0;

        uint64_t v = 0;
        const char *reason = NULL;
        int r = size_eval(s, ram, page_size, &v, &reason);
        if (r == 0)
                FUZZ_ASSERT(v > 0 && v % page_size == 0);
        else {
                FUZZ_ASSERT(r == -EINVAL);
                FUZZ_ASSERT(reason && *reason);
        }
        /* Without a reason pointer, and with a page size of 0 (refused). */
        r = size_eval(s, ram, page_size, &v, NULL);
        FUZZ_ASSERT(r == 0 || r == -EINVAL);
        FUZZ_ASSERT(size_eval(s, ram, 0, &v, &reason) == -EINVAL);

        r = quantity_parse(s, &v);
        FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
        free(s);
        return 0;
}

#ifndef NODESWAP_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        return fuzz_size_one(data, size);
}
#endif
