#!/bin/sh
# Records what the real fastchess prints for each case of tests/compat_output.rs's parity
# tests (see README.md here): stdout to CASE.out, stderr to CASE.err, the exit code and the
# files the run left in its folder (besides the book it was given) to CASE.files.
#
#   FASTCHESS=/path/to/fastchess BA=/path/to/blitz-arena sh record.sh [CASE...]
#
# (OUT=DIR writes the files there instead: FASTCHESS=$BA shows what blitz-arena prints.)
#
# Each case runs in a fresh folder holding copies of the books, so that every command line
# is the one README.md shows, with $BA for blitz-arena's path.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
: "${FASTCHESS:?set FASTCHESS to the fastchess binary}"
: "${BA:?set BA to the blitz-arena binary}"

# The case's fastchess options (the engines' `-engine` options first), on one line each.
args() {
    new="-engine cmd=$BA args=\"engine random\" name=New option.Seed=6"
    base="-engine cmd=$BA args=\"engine random\" name=Base option.Seed=16"
    rnd="-engine cmd=$BA args=\"engine random\" name=rnd option.Seed=2"
    common="-openings file=openings.epd format=epd order=sequential -recover -pgnout file=games.pgn -crc32 pgn=true"
    case "$1" in
    clean) echo "$new $base -each tc=10+0.1 -repeat -rounds 6 -ratinginterval 2 $common" ;;
    rounds) echo "$new $base -each tc=10+0.1 -games 1 -rounds 4 $common" ;;
    illegal) echo "-engine cmd=$BA args=\"engine faulty --illegal-after 3 --seed 5\" name=bad $rnd -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    null) echo "-engine cmd=$BA args=\"engine faulty --null-after 3 --seed 5\" name=bad $rnd -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    crash) echo "-engine cmd=$BA args=\"engine faulty --crash-after 3 --seed 5\" name=bad $rnd -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    hang) echo "-engine cmd=$BA args=\"engine faulty --hang-after 3 --seed 5\" name=bad $rnd -each tc=1+0 -repeat -rounds 2 $common" ;;
    timeloss) echo "-engine cmd=$BA args=\"engine faulty --slow-move-ms 900 --seed 5\" name=bad $rnd -each tc=0.5+0 -repeat -rounds 2 $common" ;;
    cuteclean) echo "$new $base -each tc=10+0.1 -repeat -rounds 6 -ratinginterval 2 -output format=cutechess $common" ;;
    cutetimeloss) echo "-engine cmd=$BA args=\"engine faulty --slow-move-ms 900 --seed 5\" name=bad $rnd -each tc=0.5+0 -repeat -rounds 2 -output format=cutechess $common" ;;
    flagnomate) echo "-engine cmd=$BA args=\"engine faulty --slow-move-ms 900 --seed 5\" name=bad $rnd -each tc=0.5+0 -repeat -rounds 1 -openings file=nomate.epd format=epd order=sequential -recover -pgnout file=games.pgn -crc32 pgn=true" ;;
    matepv) echo "-engine cmd=$BA args=\"engine faulty --short-mate-pv 3 --seed 5\" name=bad $rnd -each tc=10+0.1 -repeat -rounds 2 -check-mate-pvs $common" ;;
    cutesprt) echo "-engine cmd=$BA args=\"engine greedy\" name=New option.Seed=6 $base -each tc=10+0.1 -repeat -rounds 30 -sprt elo0=0 elo1=50 alpha=0.05 beta=0.05 -output format=cutechess $common" ;;
    gamesprt) echo "-engine cmd=$BA args=\"engine greedy\" name=New option.Seed=6 $base -each tc=10+0.1 -games 1 -rounds 60 -sprt elo0=0 elo1=50 alpha=0.05 beta=0.05 $common" ;;
    three) echo "$new $base $rnd -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    threeonce) echo "$new $base $rnd -each tc=10+0.1 -games 1 -rounds 3 $common" ;;
    illegalpv) echo "-engine cmd=$BA args=\"engine faulty --illegal-pv-after 3 --seed 5\" name=bad $rnd -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    wrongpv) echo "-engine cmd=$BA args=\"engine faulty --wrong-pv-after 3 --seed 5\" name=bad $rnd -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    matesign) echo "-engine cmd=$BA args=\"engine faulty --claim-mate-after 3 --seed 5\" name=bad -engine cmd=$BA args=\"engine faulty --claim-mate-after 3 --seed 2\" name=bad2 -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    noscore) echo "-engine cmd=$BA args=\"engine faulty --unscored-after 3 --bad-score-after 5 --seed 5\" name=bad $rnd -each tc=10+0.1 -repeat -rounds 2 $common" ;;
    trinomial) echo "$new $base -each tc=10+0.1 -repeat -rounds 6 -ratinginterval 2 -report penta=false $common" ;;
    trisprt) echo "-engine cmd=$BA args=\"engine greedy\" name=New option.Seed=6 $base -each tc=10+0.1 -repeat -rounds 30 -sprt elo0=0 elo1=50 alpha=0.05 beta=0.05 -ratinginterval 4 -report penta=false $common" ;;
    pgnbook) echo "$new $base -each tc=10+0.1 -repeat -rounds 2 -maxmoves 6 -openings file=book.pgn format=pgn order=sequential -pgnout file=games.pgn" ;;
    *) echo "unknown case $1" >&2; exit 2 ;;
    esac
}

cases=${*:-clean rounds illegal null crash hang timeloss flagnomate cuteclean cutetimeloss matepv cutesprt gamesprt three threeonce illegalpv wrongpv matesign noscore trinomial trisprt pgnbook}
for case in $cases; do
    dir=$(mktemp -d)
    cp "$here/openings.epd" "$here/nomate.epd" "$here/book.pgn" "$dir/"
    line=$(args "$case")
    echo "$case: fastchess $line" | sed "s|$BA|\$BA|g" >&2
    set +e
    (cd "$dir" && eval "\"$FASTCHESS\" $line" >"$out/$case.out" 2>"$out/$case.err")
    code=$?
    set -e
    [ -s "$out/$case.err" ] || rm -f "$out/$case.err"
    {
        echo "exit $code"
        (cd "$dir" && find . -type f ! -name openings.epd ! -name nomate.epd ! -name book.pgn | sort)
    } >"$out/$case.files"
    # pgnbook's -pgnout file is its point: kept beside its stdout.
    if [ "$case" = pgnbook ]; then cp "$dir/games.pgn" "$out/$case.pgn"; fi
    rm -rf "$dir"
done
