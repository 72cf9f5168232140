#!/bin/sh
# meson test --wrapper for tests/valgrind.sh: memcheck for compiled tests; shell-script tests run
# as they are (valgrind would only check bash itself, whose own leaks are not ours).
if [ "$(head -c 4 "$1" 2>/dev/null)" = "$(printf '\177ELF')" ]; then
	exec valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --track-origins=yes --quiet "$@"
fi
exec "$@"
