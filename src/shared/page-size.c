/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/page-size.h"

bool page_size_valid(uint64_t page_size) {
        return page_size >= PAGE_SIZE_MIN && page_size <= PAGE_SIZE_MAX && (page_size & (page_size - 1)) == 0;
}
