set terminal pngcairo size 960,600 font ',10'
set output 'latency.png'
set title 'DLPack exchange latency against tensor size (float32, median)'
set logscale xy
set xrange [700:1.6e9]
set xlabel 'tensor size'
set ylabel 'latency (ns)'
set xtics ('1 KiB' 1024, '16 KiB' 16384, '256 KiB' 262144, '4 MiB' 4194304, '64 MiB' 67108864, '256 MiB' 268435456, '1 GiB' 1073741824)
set key top left
set grid
set datafile missing 'NaN'
plot 'latency.dat' using 1:2 with linespoints lw 2 title 'library export + delete (view)', \
     'latency.dat' using 1:3 with linespoints lw 2 title 'library import (view) + release', \
     'latency.dat' using 1:4 with linespoints dt 2 lw 2 title 'at::toDLPack + deleter', \
     'latency.dat' using 1:5 with linespoints dt 2 lw 2 title 'at::fromDLPack + destruction', \
     'latency.dat' using 1:6 with linespoints lw 2 title 'library import with copy', \
     'latency.dat' using 1:7 with linespoints dt 2 lw 2 title 'memcpy (floor of a copy)'
