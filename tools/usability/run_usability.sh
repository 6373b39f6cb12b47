#!/usr/bin/env bash
# The scripted usability test of issue 22 (docs/usability.md): five tasks a new user would do,
# performed only through the GUI (xdotool mouse moves, clicks, keys and typing under Xvfb, no
# window manager), with a screenshot of the whole screen after every step.
#
#   tools/usability/run_usability.sh BUILD_DIR SHARED_DIR [OUT_DIR]
#
# BUILD_DIR holds bin/layerscope; SHARED_DIR holds traces/ (the shared traces); OUT_DIR (default
# usability-out) receives NN_step.png, the exported CSV and app.log. The app runs with a fresh
# HOME so that it starts as on a first start (window 90 % of the 1920x1080 screen, centred, docks
# at their first widths): the clicks below are offsets from the window's top-left corner and
# assume that layout. Needs Xvfb, xdotool and ImageMagick's import. Exits 0 with a message
# (and does nothing) when a tool or a trace is missing.
set -u

BUILD=${1:?usage: run_usability.sh BUILD_DIR SHARED_DIR [OUT_DIR]}
SHARED=${2:?usage: run_usability.sh BUILD_DIR SHARED_DIR [OUT_DIR]}
OUT=${3:-usability-out}
APP=$BUILD/bin/layerscope
TR=$SHARED/traces

skip() { echo "run_usability.sh: skipped: $*"; exit 0; }
for tool in Xvfb xdotool import; do command -v "$tool" >/dev/null || skip "$tool not installed"; done
[[ -x $APP ]] || skip "$APP not built (cmake --build $BUILD --target layerscope)"
for f in pair_gpt1layer_fp16_h200.nsys.sqlite pair_gpt1layer_fp16_h200.ncu.csv \
         ddp_bf16_h200x2_rank0.sqlite ddp_bf16_h200x2_rank1.sqlite; do
    [[ -f $TR/$f ]] || skip "$TR/$f absent"
done

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/*.png "$OUT"/*.csv
WORK=$(mktemp -d)
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_CACHE_HOME=$WORK/home/.cache
export XDG_RUNTIME_DIR=$WORK/run ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# A free display number, then Xvfb on it (xvfb-run -a does the same; we keep Xvfb's pid to end it).
N=90
while [[ -e /tmp/.X$N-lock || -e /tmp/.X11-unix/X$N ]]; do N=$((N + 1)); done
export DISPLAY=:$N
Xvfb ":$N" -screen 0 1920x1080x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
XVFB=$!
APPPID=
cleanup() {
    [[ -n $APPPID ]] && kill "$APPPID" 2>/dev/null
    kill "$XVFB" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 50); do xdotool getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done

STEP=0
NOTES=$OUT/steps.txt
: >"$NOTES"
# shot NAME WHAT: screenshot of the whole screen after a step, and a line saying what was done.
shot() {
    sleep "${PAUSE:-1.2}"
    STEP=$((STEP + 1))
    local file
    file=$(printf '%02d_%s.png' "$STEP" "$1")
    import -window root "$OUT/$file"
    printf '%s  %s\n' "$file" "$2" | tee -a "$NOTES"
}
# wait_window REGEX [SECONDS]: the id of the first visible window whose title matches.
wait_window() {
    local id
    for _ in $(seq $((${2:-60} * 5))); do
        id=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1)
        [[ -n $id ]] && { echo "$id"; return 0; }
        sleep 0.2
    done
    echo "run_usability.sh: no window '$1' after ${2:-60} s" >&2
    return 1
}
MAIN=
WX=0
WY=0
# focus_main [TITLE_REGEX]: wait for the main window (title once a trace is loaded), focus it
# and note its origin for click().
focus_main() {
    MAIN=$(wait_window "${1:-— Layerscope}" 120) || exit 1
    xdotool windowfocus --sync "$MAIN" 2>/dev/null || xdotool windowfocus "$MAIN"
    eval "$(xdotool getwindowgeometry --shell "$MAIN")"
    WX=$X
    WY=$Y
}
# click DX DY: a left click at an offset from the main window's top-left corner.
click() { xdotool mousemove $((WX + $1)) $((WY + $2)) click 1; }
wheel() { # wheel DX DY COUNT (positive: down)
    xdotool mousemove $((WX + $1)) $((WY + $2))
    local b=5 n=$3
    ((n < 0)) && b=4 n=$((-n))
    for _ in $(seq "$n"); do xdotool click $b; done
}
keys() { xdotool key --delay 80 "$@"; }
typeit() { xdotool type --delay 15 "$1"; }
# in_dialog TITLE_REGEX TEXT: focus the file dialog, type into its focused file-name field, Enter.
in_dialog() {
    local d
    d=$(wait_window "$1" 20) || exit 1
    xdotool windowfocus "$d"
    sleep 0.4
    typeit "$2"
    sleep 0.3
    keys Return
    sleep 0.5
    # Without a window manager X gives the focus back to no one when a dialog closes.
    [[ -n ${3:-} ]] || { xdotool windowfocus "$MAIN" 2>/dev/null; }
}
filter() { # filter TEXT: Ctrl+F, replace the filter bar's text, Enter
    keys ctrl+f ctrl+a
    typeit "$1"
    keys Return
}

echo "run_usability.sh: display $DISPLAY, screenshots in $OUT"

# ---- 1. Open the sample, find the layer whose backward is slowest, show its kernels ----------
"$APP" >"$OUT/app.log" 2>&1 &
APPPID=$!
focus_main "sample_.*— Layerscope"
shot 1_sample_opened "layerscope without a file: the bundled sample opens"
keys ctrl+3
shot 1_fwd_bwd_tab "Ctrl+3: Forward/Backward tab, backward/forward GPU time per layer at the bottom"
click 82 399 # Layers dock: iteration 2 > backward > layer1
shot 1_backward_layer1_clicked "Layers dock: backward > layer1 clicked"
filter "direction = backward"
shot 1_backward_kernels "Ctrl+F 'direction = backward': only the layer's backward kernels"

# ---- 2. Every GEMM kernel that ran without Tensor Cores, exported to CSV ---------------------
keys ctrl+f Escape # Esc in the filter bar: all kernels again
click 256 616 # the x of the scope chip left of the filter bar
shot 2_all_kernels "Esc in the filter bar and the scope chip's x: all kernels"
filter "tc = not used"
shot 2_tc_not_used "Ctrl+F 'tc = not used' (the placeholder's example)"
keys ctrl+2
shot 2_summary_tc_chart "Ctrl+2: Summary tab, GPU time by Tensor Core use"
keys ctrl+f # back in the filter bar, where the user just typed
keys ctrl+e
if ! wait_window "^Export" 5 >/dev/null 2>&1; then
    echo "    HESITATION: Ctrl+E in the filter bar opened no export dialog; clicking the table first" | tee -a "$NOTES"
    click 800 700 # the (empty) kernel table
    keys ctrl+e
fi
in_dialog "^Export" "$OUT/gemm_without_tensor_cores.csv"
shot 2_exported "Ctrl+E, path typed, Enter"
if [[ -f $OUT/gemm_without_tensor_cores.csv ]]; then
    echo "    CSV written: $(wc -l <"$OUT/gemm_without_tensor_cores.csv") lines" | tee -a "$NOTES"
else
    echo "    CSV NOT written" | tee -a "$NOTES"
fi

# ---- 3. The kernel that took the most time in the optimizer, and its launch call -------------
keys ctrl+f ctrl+a BackSpace Escape
click 50 455 # Layers dock: iteration 2 > optimizer
shot 3_optimizer_clicked "Layers dock: optimizer clicked (kernel table sorted by duration, longest first)"
click 405 661 # first row of the kernel table
shot 3_slowest_selected "first row clicked: the Details dock shows its launch call"

# ---- 4. The Nsight Compute pair: achieved occupancy of the slowest kernel ---------------------
keys ctrl+o
in_dialog "^Open trace" "$TR/pair_gpt1layer_fp16_h200.nsys.sqlite"
focus_main "pair_gpt1layer.*— Layerscope"
shot 4_pair_opened "Ctrl+O, the pair's nsys export typed, Enter"
keys ctrl+i
in_dialog "Nsight Compute" "$TR/pair_gpt1layer_fp16_h200.ncu.csv"
focus_main "pair_gpt1layer.*— Layerscope"
shot 4_ncu_imported "Ctrl+I, the pair's ncu CSV typed, Enter"
click 405 661
shot 4_slowest_selected "first (longest) kernel clicked"
wheel 1505 347 15
shot 4_details_scrolled "Details dock scrolled down to Nsight Compute: Occupancy"

# ---- 5. The DDP ranks: which rank spends more time in NCCL ----------------------------------
keys ctrl+o
in_dialog "^Open trace" "$TR/" keep-dialog
sleep 0.5
typeit '"ddp_bf16_h200x2_rank0.sqlite" "ddp_bf16_h200x2_rank1.sqlite"'
keys Return
focus_main "2 ranks in 2 files.*— Layerscope"
shot 5_ranks_opened "Ctrl+O, both rank files selected in the dialog"
keys ctrl+5
shot 5_ranks_tab "Ctrl+5: Ranks tab"
filter "name ~ nccl"
shot 5_nccl_filter "Ctrl+F 'name ~ nccl': rank 0's NCCL kernels"
keys ctrl+bracketright
shot 5_rank1 "Ctrl+]: the other rank"

echo "run_usability.sh: $STEP screenshots in $OUT (steps.txt lists them)"
