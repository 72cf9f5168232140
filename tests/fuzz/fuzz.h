/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fuzz harness entry points. Built with clang -fsanitize=fuzzer each file is a libFuzzer
 * target (run-fuzz.sh); built with -DNODESWAP_REPLAY they are plain functions that replay.c runs
 * over the seed corpus and every regression input, as a unit test. */
#pragma once

#include <stddef.h>
#include <stdint.h>

int fuzz_policy_one(const uint8_t *data, size_t size);
int fuzz_size_one(const uint8_t *data, size_t size);
int fuzz_kubelet_one(const uint8_t *data, size_t size);

/* A check that holds for every input; a failure is a bug the fuzzer reports as a crash. */
#define FUZZ_ASSERT(x)                                                                          \
        do {                                                                                    \
                if (!(x)) {                                                                     \
                        fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #x); \
                        abort();                                                                \
                }                                                                               \
        } while (0)
