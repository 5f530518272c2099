# SPDX-License-Identifier: MIT
# Compile scaling from results.csv: ns per rule of sbx_scopeattr_compile()
# and of the bare system calls, against the number of siblings.
# Usage: gnuplot -e "csv='results.csv'; png='compile.png'" compile.gp
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 800,500 noenhanced
} else {
	set terminal png size 800,500 noenhanced
}
set output png
set datafile separator ","
set title "Compile cost per rule: one denied entry among N siblings (medians)"
set xlabel "siblings in the directory"
set ylabel "ns per rule"
set logscale x
set xrange [5:200000]
set yrange [0:*]
set key bottom right
set grid

# Columns: section,name,param,median,...  Only the rows of one series go
# to each plot, so that its points join up.
rows(name) = sprintf("< grep '^compile,\"%s\",' '%s'", name, csv)
plot rows("compile") using 3:4 with linespoints lw 2 title "sbx_scopeattr_compile()", \
     rows("floor") using 3:4 with linespoints lw 2 title "floor: getdents64, then openat(O_PATH) + landlock_add_rule + close", \
     rows("floor with statx") using 3:4 with linespoints lw 1 dt 2 title "the floor with a statx of each entry"
