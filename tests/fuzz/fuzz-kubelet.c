/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz kubelet_config_parse() and the merge: the input is one kubelet configuration file (YAML or
 * JSON). Whatever the bytes, the parse either marks the file invalid with a reason, or gives
 * fields whose values and lines are consistent; merging it alone, and merged with nodeswap's own
 * drop-in after it, never lets the input win over nodeswap's drop-in. */
#include "plan/kubelet.h"
#include "fuzz.h"

static unsigned count_lines(const uint8_t *data, size_t size) {
        unsigned n = 1;
        for (size_t i = 0; i < size; i++)
                if (data[i] == '\n' || data[i] == '\r')
                        n++;
        return n;
}

int fuzz_kubelet_one(const uint8_t *data, size_t size) {
        if (size > 64 * 1024)
                return 0;
        KubeletConfigFile f;
        FUZZ_ASSERT(kubelet_config_parse("/d/50-x.conf", (const char *) data, size, &f) == 0);
        unsigned lines = count_lines(data, size);

        if (f.invalid)
                FUZZ_ASSERT(f.invalid_reason && *f.invalid_reason && f.invalid_line <= lines);
        else
                FUZZ_ASSERT(!f.invalid_reason);
        FUZZ_ASSERT((f.swap_behavior_field == KUBELET_FIELD_SET) == (f.swap_behavior_value != NULL));
        if (f.swap_behavior_field != KUBELET_FIELD_ABSENT)
                FUZZ_ASSERT(f.swap_behavior_line >= 1 && f.swap_behavior_line <= lines);
        if (f.fail_swap_on_field != KUBELET_FIELD_ABSENT)
                FUZZ_ASSERT(f.fail_swap_on_line >= 1 && f.fail_swap_on_line <= lines);
        FUZZ_ASSERT((f.memory_available_field == KUBELET_FIELD_SET) == (f.memory_available_value != NULL));
        FUZZ_ASSERT(f.memory_available_field == KUBELET_FIELD_ABSENT || f.eviction_hard_field == KUBELET_FIELD_SET);
        if (f.eviction_hard_field != KUBELET_FIELD_ABSENT)
                FUZZ_ASSERT(f.eviction_hard_line >= 1 && f.eviction_hard_line <= lines);
        if (f.memory_available_field != KUBELET_FIELD_ABSENT)
                FUZZ_ASSERT(f.memory_available_line >= 1 && f.memory_available_line <= lines);

        KubeletConfig c = { .config_dir = (char *) "/d", .files = &f, .n_files = 1 };
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        FUZZ_ASSERT(e.first_invalid == (f.invalid ? &f : NULL));
        if (f.swap_behavior_field == KUBELET_FIELD_ABSENT)
                FUZZ_ASSERT(!e.swap_behavior_from && e.swap_behavior == SWAP_BEHAVIOR_UNSET);
        else
                FUZZ_ASSERT(e.swap_behavior_from == &f);

        /* nodeswap's 90-nodeswap.conf sorts after 50-x.conf: it decides */
        KubeletConfigFile ours;
        FUZZ_ASSERT(kubelet_effective_with_dropin(&c, "/d/90-nodeswap.conf", SWAP_BEHAVIOR_LIMITED_SWAP, NULL,
                                                  &ours, &e) == 0);
        FUZZ_ASSERT(e.swap_behavior_from == &ours && e.swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP);
        FUZZ_ASSERT(e.fail_swap_on_from == &ours && !e.fail_swap_on);
        kubelet_config_file_done(&ours);
        kubelet_config_file_done(&f);
        return 0;
}

#ifndef NODESWAP_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        return fuzz_kubelet_one(data, size);
}
#endif
