#!/usr/bin/env python3
"""Make an N-rank job out of real per-rank Nsight Systems exports, for session benchmarks.

Copy r of the job is made from source r % len(SRC) and named DST/job_rank<r>.sqlite. Each copy is
shifted a little (r * 7 us plus a few us of jitter) on the recorded session start time, as ranks
of a real job start at slightly different moments; its host becomes node<r // 8> and its GPUs
device <r % 8>, as eight GPUs per node would number them. The sources are never written.

usage: make_rank_copies.py DST_DIR --ranks N SRC [SRC ...]
"""
import argparse, os, random, shutil, sqlite3

GPU_TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dst")
    ap.add_argument("src", nargs="+")
    ap.add_argument("--ranks", type=int, required=True)
    a = ap.parse_args()
    os.makedirs(a.dst, exist_ok=True)
    rng = random.Random(17)
    for r in range(a.ranks):
        out = os.path.join(a.dst, f"job_rank{r}.sqlite")
        shutil.copyfile(a.src[r % len(a.src)], out)
        os.chmod(out, 0o644)
        db = sqlite3.connect(out)
        tables = {row[0] for row in db.execute("select name from sqlite_master where type='table'")}
        shift = r * 7_000 + rng.randrange(0, 5_000)
        if "TARGET_INFO_SESSION_START_TIME" in tables:
            db.execute("update TARGET_INFO_SESSION_START_TIME set utcEpochNs = utcEpochNs + ?", (shift,))
        if "TARGET_INFO_SYSTEM_ENV" in tables:
            db.execute("update TARGET_INFO_SYSTEM_ENV set value = ? where name = 'Hostname'", (f"node{r // 8}",))
        for t in GPU_TABLES:
            if t in tables:
                db.execute(f"update {t} set deviceId = ?", (r % 8,))
        if "TARGET_INFO_GPU" in tables:
            db.execute("delete from TARGET_INFO_GPU where rowid not in (select min(rowid) from TARGET_INFO_GPU)")
            db.execute("update TARGET_INFO_GPU set id = ?", (r % 8,))
        db.commit()
        db.close()


if __name__ == "__main__":
    main()
