#!/usr/bin/env bash
# fetch_corpus.sh - bring the real-trace corpus (tests/corpus/manifest.tsv) into
# tests/corpus/files/<id><extension>, each file pinned by repository, commit, path and sha256.
#
# Usage: tools/fetch_corpus.sh [--offline] [MANIFEST [DEST]]
#   MANIFEST  default tests/corpus/manifest.tsv;  DEST  default tests/corpus/files
#   --offline (or LAYERSCOPE_CORPUS_OFFLINE=1): never use the network
# Env: LAYERSCOPE_MIRRORS  folder of local git mirrors, one per repository, named owner+name
#                          (a bare repository, or one holding repo/ or repo/.git); default /work/.mirror
#
# For each row, in this order:
#   0. committed in tests/corpus/data (small files under permissive licences, their licence
#      texts in tests/corpus/licences): nothing to fetch ("committed")
#   1. DEST/<id><ext> already there with the right sha256: kept ("present")
#   2. a local mirror of the repository holds the commit: `git show COMMIT:PATH`
#   3. https://raw.githubusercontent.com/REPO/COMMIT/PATH, and for a Git LFS pointer
#      https://media.githubusercontent.com/media/REPO/COMMIT/PATH
# Every file is checked against its sha256; a mismatch deletes it and says so.
# Prints one line per file (present / fetched / unavailable: why) and a count.
# Exit status: 0 also when some files are unavailable (offline CI skips them); 1 when any file
# had the wrong sha256; 2 on a usage error.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OFFLINE=${LAYERSCOPE_CORPUS_OFFLINE:-0}
[ "${1:-}" = "--offline" ] && { OFFLINE=1; shift; }
MANIFEST=${1:-$ROOT/tests/corpus/manifest.tsv}
DEST=${2:-$ROOT/tests/corpus/files}
MIRRORS=${LAYERSCOPE_MIRRORS:-/work/.mirror}

[ -f "$MANIFEST" ] || { echo "fetch_corpus.sh: no manifest at $MANIFEST" >&2; exit 2; }
mkdir -p "$DEST" || exit 2

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
    else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# The original extension(s): .pt.trace.json.gz, .json.gz, else the last one.
extension() {
    local base=${1##*/}
    case "$base" in
    *.pt.trace.json.gz) echo .pt.trace.json.gz ;;
    *.pt.trace.json) echo .pt.trace.json ;;
    *.json.gz) echo .json.gz ;;
    *.*) echo ".${base##*.}" ;;
    *) echo "" ;;
    esac
}

# The git directory of a local mirror of owner/name, if any.
mirror_of() {
    local base=$MIRRORS/${1/\//+} d
    for d in "$base" "$base/repo" "$base/repo/.git" "$base.git"; do
        if [ -d "$d" ] && git --git-dir="$d" rev-parse --git-dir >/dev/null 2>&1; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

urlencode() { # each path segment; '/' kept
    local s=$1 out="" c i
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case "$c" in [a-zA-Z0-9/._~-]) out+=$c ;; *) out+=$(printf '%%%02X' "'$c") ;; esac
    done
    echo "$out"
}

is_lfs_pointer() { head -c 64 "$1" 2>/dev/null | grep -q '^version https://git-lfs.github.com/spec/'; }

present=0 fetched=0 unavailable=0 mismatched=0
while IFS=$'\t' read -r id repo commit path licence sha format what; do
    [ "$id" = "id" ] && continue # header
    [ -z "$id" ] && continue
    case "$id" in \#*) continue ;; esac
    file=$DEST/$id$(extension "$path")
    committed=$ROOT/tests/corpus/data/$id$(extension "$path")
    if [ -f "$committed" ] && [ "$(sha256 "$committed")" = "$sha" ]; then
        echo "committed    $id"
        present=$((present + 1))
        continue
    fi
    if [ -f "$file" ]; then
        if [ "$(sha256 "$file")" = "$sha" ]; then
            echo "present      $id"
            present=$((present + 1))
            continue
        fi
        echo "stale        $id: sha256 differs from the manifest, fetching again"
        rm -f "$file"
    fi
    tmp=$file.part
    rm -f "$tmp"
    source="" why=""
    if gitdir=$(mirror_of "$repo"); then
        if git --git-dir="$gitdir" show "$commit:$path" >"$tmp" 2>/dev/null && [ -s "$tmp" ]; then
            source="mirror $gitdir"
        else
            why="mirror $gitdir lacks $commit:$path"
        fi
    else
        why="no mirror of $repo under $MIRRORS"
    fi
    if [ -z "$source" ] && [ "$OFFLINE" != 1 ]; then
        if ! command -v curl >/dev/null 2>&1; then
            why="$why; no curl"
        else
            url="https://raw.githubusercontent.com/$repo/$commit/$(urlencode "$path")"
            if curl -fsSL --connect-timeout 10 --max-time 600 -o "$tmp" "$url" 2>/dev/null; then
                source=$url
                if is_lfs_pointer "$tmp"; then
                    url="https://media.githubusercontent.com/media/$repo/$commit/$(urlencode "$path")"
                    if curl -fsSL --connect-timeout 10 --max-time 600 -o "$tmp" "$url" 2>/dev/null; then source=$url
                    else source=""; why="$why; Git LFS content not downloadable"; fi
                fi
            else
                why="$why; download failed"
            fi
        fi
    elif [ -z "$source" ]; then
        why="$why; offline"
    fi
    if [ -z "$source" ]; then
        rm -f "$tmp"
        echo "unavailable  $id: $why"
        unavailable=$((unavailable + 1))
        continue
    fi
    got=$(sha256 "$tmp")
    if [ "$got" != "$sha" ]; then
        rm -f "$tmp"
        echo "MISMATCH     $id: sha256 $got from $source, manifest says $sha; deleted"
        mismatched=$((mismatched + 1))
        continue
    fi
    mv -f "$tmp" "$file"
    echo "fetched      $id (${source%% *})"
    fetched=$((fetched + 1))
done <"$MANIFEST"

total=$((present + fetched + unavailable + mismatched))
echo "corpus: $((present + fetched)) of $total files in $DEST ($present present, $fetched fetched, $unavailable unavailable, $mismatched sha256 mismatches)"
[ "$mismatched" -eq 0 ]
