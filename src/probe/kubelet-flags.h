/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* The kubelet's command-line flags, read from the places its unit takes them from, in the order
 * the kubelet receives them. The kubelet applies its flags after it merged the --config file and
 * the --config-dir drop-ins (kubernetes/kubernetes cmd/kubelet/app/server.go,
 * kubeletConfigFlagPrecedence()), so for a repeated flag the last one wins over every file.
 *
 * Where they come from:
 *   k3s-agent.service, k3s.service (and rke2-agent.service, rke2-server.service the same with
 *     rke2 for k3s): k3s hands its kubelet-arg entries to the kubelet as --NAME=VALUE (k3s-io/k3s
 *     util.GetArgs(): "NAME+=" appends to k3s's own value, "NAME-=" prepends, the
 *     order of repeated names is kept). The entries are, in this order, those of
 *     /etc/rancher/k3s/config.yaml (or the file --config/-c names on the command line) and of
 *     the .yaml and .yml files of config.yaml.d in name order (k3s-io/k3s pkg/configfilearg
 *     readConfigFile(): a later file's "kubelet-arg:" replaces the list, "kubelet-arg+:" appends
 *     to it), then the --kubelet-arg options on the unit's ExecStart= (the unit file and its .conf
 *     drop-ins in NAME.d; systemd's quoting, escapes and "\" line continuations).
 *   kubelet.service (kubeadm): $KUBELET_KUBEADM_ARGS then $KUBELET_EXTRA_ARGS, the variables of
 *     the EnvironmentFile=s kubeadm's 10-kubeadm.conf names (/var/lib/kubelet/kubeadm-flags.env,
 *     /etc/default/kubelet, /etc/sysconfig/kubelet; a later assignment wins), with systemd's
 *     EnvironmentFile= quoting, each split at whitespace as an unquoted $VAR on ExecStart= is.
 *
 * The words are read as the kubelet's pflag reads them: --NAME=VALUE, --NAME VALUE, --NAME alone
 * (a boolean: true), "--" ends the flags; '_' in a name is '-' (WordSepNormalizeFunc). Nothing
 * is run: no shell, no systemd. */

typedef struct KubeletFlag {
        char *name;             /* "fail-swap-on": no leading dashes, '_' as '-' */
        char *value;            /* as given; NULL: the flag alone (a boolean flag takes it as true) */
        char *file;             /* host path of the file that carries it */
        unsigned line;          /* its line in file (1-based), 0: unknown */
        const char *via;        /* how it reaches the kubelet: "kubelet-arg", "--kubelet-arg on ExecStart=",
                                 * "KUBELET_KUBEADM_ARGS", "KUBELET_EXTRA_ARGS" */
} KubeletFlag;

typedef struct KubeletFlags {
        KubeletFlag *flags;     /* in the order the kubelet receives them */
        size_t n;
        /* k3s and rke2: the last kubelet-arg "config=FILE" and "config-dir=DIR". They never reach
         * the kubelet: before every start k3s takes them out of the kubelet's flags and copies FILE
         * to 10-cli-config.conf and DIR's contents into 20-cli-config-dir/ of its own --config-dir
         * (unless they already lie below it), where the kubelet reads them as drop-ins (k3s-io/k3s
         * pkg/agent extractConfigArgs(); k3s-io/k3s#2116). name NULL: none. */
        KubeletFlag k3s_config, k3s_config_dir;
} KubeletFlags;

void kubelet_flags_done(KubeletFlags *f);

/* The flags the kubelet of unit gets, below root (see above; another unit, or NULL: none).
 * Missing files are not errors. Returns 0 or -ENOMEM. */
int kubelet_flags_read(const char *root, const char *unit, KubeletFlags *ret);

/* The occurrence of name that wins (the last), NULL when none. */
const KubeletFlag *kubelet_flags_last(const KubeletFlags *f, const char *name);

/* "--NAME=VALUE (VIA in FILE:LINE)": the flag and the file that carries it. malloc'd, NULL on ENOMEM. */
char *kubelet_flag_source(const KubeletFlag *f);

/* A boolean flag's value as Go's strconv.ParseBool reads it: 1, 0, or -1 (the kubelet refuses it
 * and does not start). */
int kubelet_flag_bool(const KubeletFlag *f);

/* The executable of unit's ExecStart= (the unit file and its drop-ins, the last ExecStart= that
 * counts; systemd's prefixes dropped), in *ret (malloc'd), NULL when it has none or it is no
 * absolute path. Returns 0 or -ENOMEM. */
int kubelet_unit_exec(const char *root, const char *unit, char **ret);
