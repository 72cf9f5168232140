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
        for f in "$d"/rpi/swap.conf.d/*.conf; do [ -e "$f" ] || [ -L "$f" ] && echo "${f##*/}"; done
done | sort -u)
for n in $names; do
        for d in $conf_dirs; do
                f=$d/rpi/swap.conf.d/$n
                [ -e "$f" ] || [ -L "$f" ] || continue
                [ "$(readlink "$f" 2>/dev/null)" = /dev/null ] || files="$files $f"
                break
        done
done

# Every SECTION.KEY's last value in one awk run over all the files, as shell assignments of
# cfg_SECTION_KEY (a stand-in that forks once per key cost a TCG guest about a second at every
# daemon-reload); a key the files leave empty or unset gets its default below.
cfg_read() {
        [ -n "$files" ] || return 0
        eval "$(awk '
                { sub(/\r$/, ""); sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "") }
                /^[#;]/ || $0 == "" { next }
                /^\[/ { sec = substr($0, 2, length($0) - 2); next }
                { i = index($0, "="); if (i == 0) next
                  key = substr($0, 1, i - 1); sub(/[ \t]+$/, "", key)
                  val = substr($0, i + 1); sub(/^[ \t]+/, "", val)
                  if (sec !~ /^[A-Za-z0-9]+$/ || key !~ /^[A-Za-z0-9]+$/) next
                  gsub(/\047/, "\047\\\047\047", val)
                  last[sec "_" key] = val }
                END { for (k in last) printf "cfg_%s=\047%s\047\n", k, last[k] }' $files)"
}

rpi_swap_read_config() {
cfg_read
mechanism=${cfg_Main_Mechanism:-auto}
path=${cfg_File_Path:-/var/swap}
zram_mult=${cfg_Zram_RamMultiplier:-1}
zram_max=${cfg_Zram_MaxSizeMiB:-2048}
zram_fixed=${cfg_Zram_FixedSizeMiB:-}
wb_trigger=${cfg_Zram_WritebackTrigger:-auto}
wb_delay=${cfg_Zram_WritebackInitialDelay:-180min}
wb_every=${cfg_Zram_WritebackPeriodicInterval:-24h}

file_mult=${cfg_File_RamMultiplier:-1}
file_max=${cfg_File_MaxSizeMiB:-2048}
file_disk_pct=${cfg_File_MaxDiskPercent:-50}
file_fixed=${cfg_File_FixedSizeMiB:-}
case $mechanism in
swapfile|swapdev|zram|zram+file|zram+device|none|auto) ;;
*) mechanism=auto ;;            # unknown values are read as the default
esac
case $path in /*) ;; *) echo "rpi-swap: [File] Path=$path is not absolute" >&2; return 1 ;; esac
path=$(realpath -m "$path")
}
