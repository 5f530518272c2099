#!/bin/sh
# SPDX-License-Identifier: MIT
# The quick-start demo.  Two sibling projects; from inside one, three ordinary
# readers fetch the other's secret.  Each runs twice: as it is, and under
# sbxrun with the sibling denied.  Usage: demo.sh PATH-TO-SBXRUN
set -u
sbxrun=${1:?usage: demo.sh PATH-TO-SBXRUN}
top=$(mktemp -d /tmp/sbxdemo.XXXXXX)
trap 'rm -rf "$top"' EXIT
mkdir -p "$top/projects/alpha/src" "$top/projects/beta"
echo 'API_KEY=sk-demo-4242-beta' > "$top/projects/beta/.env"
echo 'int main(void) { return 0; }' > "$top/projects/alpha/src/main.c"
cd "$top/projects/alpha" || exit 1

printf 'libsbxspawn demo\n'
printf 'Two projects side by side: %s/projects/{alpha,beta}; beta/.env holds a key.\n' "$top"
printf 'Every command runs in alpha, once as it is and once under\n'
printf '  sbxrun --deny %s/projects/beta -- COMMAND\n\n' "$top"
if ! "$sbxrun" --status | grep -q '^Landlock: enforcing'; then
	printf 'This kernel has no Landlock: the confined column would leak too.\n'
	"$sbxrun" --status
	exit 1
fi

# Runs "$@" and prints a verdict: LEAKED when the key shows, else the error.
# A denial hidden in the command's own mount namespace (the default where
# it can be) is an empty directory to root: nothing there, or no such file.
verdict() {
	out=$("$@" 2>&1)
	status=$?
	case $out in
	*sk-demo-4242*) printf 'LEAKED the key' ;;
	*[Pp]ermission*) printf 'denied (Permission denied)' ;;
	*"No such file"*) printf 'denied (hidden: no such file)' ;;
	'') [ "$status" -eq 0 ] && printf 'ok' || printf 'denied (hidden: nothing there)' ;;
	*) printf '%s' "$out" | head -n 1 | cut -c1-32 ;;
	esac
}

failures=0
row() {
	label=$1 expect_open=$2 expect_confined=$3
	shift 3
	open=$(verdict "$@")
	confined=$(verdict "$sbxrun" --quiet --deny "$top/projects/beta" -- "$@")
	printf '%-34s %-28s %s\n' "$label" "$open" "$confined"
	case $open in $expect_open) ;; *) failures=$((failures + 1)) ;; esac
	case $confined in $expect_confined) ;; *) failures=$((failures + 1)) ;; esac
}

printf '%-34s %-28s %s\n' 'command' 'unconfined' 'confined (beta denied)'
printf '%-34s %-28s %s\n' '-------' '----------' '----------------------'
row 'grep -r API_KEY ../beta' 'LEAKED*' 'denied*' grep -r API_KEY ../beta
row 'cat ../beta/.env' 'LEAKED*' 'denied*' cat ../beta/.env
row "python3 open('../beta/.env')" 'LEAKED*' 'denied*' \
	python3 -c "print(open('../beta/.env').read())"
row 'own project: cat src/main.c' 'int main*' 'int main*' cat src/main.c
row 'own project: write src/new.c' 'ok' 'ok' sh -c 'echo x > src/new.c && rm src/new.c'
row 'own project: mkdir build' 'ok' 'ok' sh -c 'mkdir build && rmdir build'
printf '\n'
if [ "$failures" -eq 0 ]; then
	printf 'The sibling is denied to every reader; alpha stays readable and writable.\n'
else
	printf 'demo: %d results differ from what they should be\n' "$failures"
	exit 1
fi
