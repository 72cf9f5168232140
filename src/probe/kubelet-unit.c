/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/kubelet-unit.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/unit-name.h"
#include "shared/util.h"

static const char *const kubelet_units[] = {
        "k3s-agent.service",
        "k3s.service",
        "rke2-agent.service",
        "rke2-server.service",
        "kubelet.service",
};

static const char *const unit_dirs[] = { SYSTEMD_UNIT_DIRS };

bool unit_file_in(const char *root, const char *const *dirs, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *rel = strdup_printf("%s/%s", dirs[i], name);
                _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
                struct stat st;
                if (!p || lstat(p, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        char t[PATH_MAX];
                        ssize_t k = readlink(p, t, sizeof t - 1);
                        if (k > 0) {
                                t[k] = 0;
                                if (streq(t, "/dev/null"))
                                        continue;       /* a mask, not a unit */
                        }
                }
                return true;
        }
        return false;
}

const char *kubelet_unit_find(const char *root, const Policy *policy) {
        if (policy->kubelet_unit)
                return policy->kubelet_unit;
        for (size_t i = 0; i < ELEMENTSOF(kubelet_units); i++)
                if (unit_file_in(root, unit_dirs, ELEMENTSOF(unit_dirs), kubelet_units[i]))
                        return kubelet_units[i];
        return NULL;
}

const char *kubelet_unit_default_dropin(const char *unit) {
        if (unit && (streq(unit, "rke2-agent.service") || streq(unit, "rke2-server.service")))
                return "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/90-nodeswap.conf";
        return NULL;
}
