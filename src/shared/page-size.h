/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The page sizes nodeswap works with: a power of two from 4 KiB (every Linux architecture's
 * smallest) to 256 KiB (the largest any architecture offers, hexagon; arm64 and ppc64 go to
 * 64 KiB). A swap header is written for one page size (its magic ends at the end of the first
 * page), so every size that ends up in one is checked here first. */
#define PAGE_SIZE_MIN UINT64_C(4096)
#define PAGE_SIZE_MAX (UINT64_C(256) * 1024)

/* The one test of a page size, for the policy context, swap headers, zram and swap files. */
bool page_size_valid(uint64_t page_size);
