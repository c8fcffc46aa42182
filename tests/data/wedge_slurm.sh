#!/bin/sh
# test_wedge_slurm (tests/wedge.cmake): a prepared wedge's slurm.sbatch
# submitted to a one-node Slurm of its own (slurmctld and slurmd, with a
# munged of their own on its own socket, all in WORK and on their own
# ports), waited for, and each variant's digest held to one
# `rubble --headless` run of its scene. The daemons it started are stopped
# by their pids at the end.
# usage: wedge_slurm.sh RUBBLE WORK
set -eu
rubble=$1
work=$2
rm -rf "$work"
mkdir -p "$work/state" "$work/spool" "$work/munge" "$work/log"
chmod 700 "$work/munge"
stop() { # each daemon it started, by its pid, then waits (10 s at most) for them to go
    started=""
    for f in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/pid"; do
        [ -f "$f" ] && started="$started $(cat "$f")"
    done
    for p in $started; do kill "$p" 2>/dev/null || true; done
    for i in $(seq 20); do
        alive=""
        for p in $started; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ -z "$alive" ] && break
        sleep 0.5
    done
}
trap stop EXIT

# munged, its key and socket in WORK (as root it needs --force)
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$work/munge/key"
munged --force --socket="$work/munge/sock" --key-file="$work/munge/key" --pid-file="$work/munge/pid" \
       --seed-file="$work/munge/seed" --log-file="$work/munge/log"

host=$(hostname)
cat > "$work/slurm.conf" <<EOF
ClusterName=wedgetest
SlurmctldHost=$host
SlurmctldPort=16917
SlurmdPort=16918
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=2 State=UNKNOWN
PartitionName=wedge Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -i
slurmd
up=0
for i in $(seq 60); do
    if sinfo -h -o %T 2>/dev/null | grep -q idle; then up=1; break; fi
    sleep 1
done
[ "$up" = 1 ] || { echo "the one-node Slurm did not come up in 60 s"; cat "$work/log/"*; exit 1; }

# a small wedge: two cubes, two frictions
cat > "$work/scene.json" <<'EOF'
{"rubble_scene": 1, "bodies": [{"shape": "cube", "position": [0, 0.6, 0]},
                               {"shape": "cube", "position": [0, 1.9, 0], "velocity": [2, 0, 0]}]}
EOF
cat > "$work/wedge.json" <<'EOF'
{"scene": "scene.json", "steps": 150, "vary": [{"key": "materials.default.friction", "values": [0.1, 0.9]}]}
EOF
"$rubble" wedge "$work/wedge.json" --out "$work/out" --prepare
grep -q '^#SBATCH --array=0-1$' "$work/out/slurm.sbatch"
sbatch --wait "$work/out/slurm.sbatch"

for v in 0000 0001; do
    grep -q '"status":[[:space:]]*"ok"' "$work/out/$v/summary.json" || { cat "$work/out/$v/summary.json"; exit 1; }
    got=$(sed -n 's/.*"digest":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$work/out/$v/summary.json")
    want=$("$rubble" --headless --scene "$work/out/$v/scene.json" --steps 150 --json 2>/dev/null |
           sed -n 's/.*"digest":"\([0-9a-f]*\)".*/\1/p')
    echo "variant $v: Slurm $got, headless $want"
    [ -n "$got" ] && [ "$got" = "$want" ] || exit 1
done
d0=$(sed -n 's/.*"digest":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$work/out/0000/summary.json")
d1=$(sed -n 's/.*"digest":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$work/out/0001/summary.json")
[ "$d0" != "$d1" ] || { echo "the two frictions ended the same"; exit 1; }
ls "$work/out"/slurm-*_0.log "$work/out"/slurm-*_1.log >/dev/null
echo "Slurm ran the wedge's array"
