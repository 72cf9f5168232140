# SPDX-License-Identifier: GPL-2.0-or-later
# e2e stand-in for rpi-swap's configuration reader (rpi-systemd-config rpi/swap.conf), shared by
# the stand-in generator and rpi-resize-swap-file. Sourced; rpi_swap_read_config sets mechanism,
# path, file_* and zram_*/wb_* from rpi/swap.conf and its drop-ins (systemd's rules).
conf_dirs=${RPI_SWAP_CONF_DIRS:-/etc /run /usr/local/lib /usr/lib}    # override: local tests of the stand-in

# --- configuration: rpi/swap.conf (the first found) and every rpi/swap.conf.d/*.conf drop-in,
# --- in file-name order, the same name in an earlier directory replacing a later one, a
# --- symlink to /dev/null masking it; later assignments win, unknown keys are ignored.
files=
for d in $conf_dirs; do
        if [ -f "$d/rpi/swap.conf" ]; then files="$d/rpi/swap.conf"; break; fi
done
names=$(for d in $conf_dirs; do
        for f in "$d"/rpi/swap.conf.d/*.conf; do [ -e "$f" ] || [ -L "$f" ] && basename "$f"; done
done | sort -u)
for n in $names; do
        for d in $conf_dirs; do
                f=$d/rpi/swap.conf.d/$n
                [ -e "$f" ] || [ -L "$f" ] || continue
                [ "$(readlink "$f" 2>/dev/null)" = /dev/null ] || files="$files $f"
                break
        done
done

get() {         # get SECTION KEY DEFAULT
        v=
        [ -n "$files" ] && v=$(awk -v s="[$1]" -v k="$2" '
                { sub(/\r$/, ""); sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "") }
                /^[#;]/ || $0 == "" { next }
                /^\[/ { sec = $0; next }
                sec == s { i = index($0, "="); if (i == 0) next
                           key = substr($0, 1, i - 1); sub(/[ \t]+$/, "", key)
                           val = substr($0, i + 1); sub(/^[ \t]+/, "", val)
                           if (key == k) { found = 1; last = val } }
                END { if (found) print last }' $files)
        [ -n "$v" ] && echo "$v" || echo "$3"
}

rpi_swap_read_config() {
mechanism=$(get Main Mechanism auto)
path=$(get File Path /var/swap)
zram_mult=$(get Zram RamMultiplier 1)
zram_max=$(get Zram MaxSizeMiB 2048)
zram_fixed=$(get Zram FixedSizeMiB "")
wb_trigger=$(get Zram WritebackTrigger auto)
wb_delay=$(get Zram WritebackInitialDelay 180min)
wb_every=$(get Zram WritebackPeriodicInterval 24h)

file_mult=$(get File RamMultiplier 1)
file_max=$(get File MaxSizeMiB 2048)
file_disk_pct=$(get File MaxDiskPercent 50)
file_fixed=$(get File FixedSizeMiB "")
case $mechanism in
swapfile|swapdev|zram|zram+file|zram+device|none|auto) ;;
*) mechanism=auto ;;            # unknown values are read as the default
esac
case $path in /*) ;; *) echo "rpi-swap: [File] Path=$path is not absolute" >&2; return 1 ;; esac
path=$(realpath -m "$path")
}
