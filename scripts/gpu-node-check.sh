#!/bin/bash
# Checks the GPU health checks and the agent's Xid watch on a real NVIDIA GPU node, as root:
# the gpu/dcgm checks against the real nvidia-smi (and dcgmi if installed), then an agent with
# its Xid watch on the real /dev/kmsg while (1) root writes a forged Xid record, (2) the user
# nobody runs a segfaulting program named like an Xid, (3) a CUDA kernel (CuPy) writes to an
# unmapped address, which makes the driver log a real Xid 31. The agent also runs its periodic
# GPU checks (--gpu-check-every 1, 60 times the default rate); the script times nvidia-smi's two
# queries idle and under a bf16 matrix-product load, and compares that load's rate with and
# without the agent checking (one run, side by side). Prints everything it saw;
# docs/health-checks.md ("Seen on a real GPU node") records runs.
#
#   sudo scripts/gpu-node-check.sh [PATH-TO-autoresume]    (default: autoresume on PATH)
# Needs: nvidia-smi, python3 with CuPy and PyTorch, a C compiler for (2). Leaves no node marked: the
# agent's --node is a made-up name and no Slurm is needed (marking would fail and be logged).
set -u
AR=${1:-$(command -v autoresume)}
[ -x "$AR" ] || { echo "usage: $0 PATH-TO-autoresume" >&2; exit 2; }
sec() { echo; echo "===== $*"; }
sec uname; uname -a; cat /proc/driver/nvidia/version 2>&1 | head -2
sec nvidia-smi; nvidia-smi 2>&1 | head -20
sec query-gpu; nvidia-smi --query-gpu=index,pci.bus_id,uuid,ecc.errors.uncorrected.volatile.total,retired_pages.pending --format=csv,noheader,nounits; echo "exit=$?"
sec query-remapped-rows; nvidia-smi --query-remapped-rows=gpu_bus_id,remapped_rows.pending,remapped_rows.failure --format=csv,noheader,nounits; echo "exit=$?"
sec tools; for t in dcgmi nv-hostengine dmesg journalctl gcc cc curl; do printf '%s: %s\n' "$t" "$(command -v $t || echo absent)"; done
sec nvidia pci devices; grep -l 0x10de /sys/bus/pci/devices/*/vendor 2>&1
sec kmsg-before; (timeout 1 cat /dev/kmsg | grep -c . ) 2>&1; dmesg --kernel 2>&1 | grep -i "xid" | tail -5
sec health-gpu-dcgm; $AR health --check gpu,dcgm --json -v --kernel-log /dev/kmsg; echo "exit=$?"
sec health-expect-2; $AR health --check gpu --expected-gpus 2; echo "exit=$?"
# Milliseconds per call of nvidia-smi's two queries, as the checks run them, over N calls.
smi_times() {
  local n=$1 q t0 t1
  for q in "--query-gpu=index,pci.bus_id,uuid,ecc.errors.uncorrected.volatile.total,retired_pages.pending" \
           "--query-remapped-rows=gpu_bus_id,remapped_rows.pending,remapped_rows.failure"; do
    t0=$(date +%s%N); for _ in $(seq "$n"); do nvidia-smi "$q" --format=csv,noheader,nounits >/dev/null; done; t1=$(date +%s%N)
    echo "${q%%=*}: $(( (t1 - t0) / n / 1000000 )) ms per call over $n calls"
  done
}
# A bf16 matrix-product load for $1 seconds; prints its rate.
matmul_load() {
  PYTHONUNBUFFERED=1 python3 - "$1" <<'PY'
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
for _ in range(3): a @ b
torch.cuda.synchronize(); n = 0; t = time.time(); end = t + float(sys.argv[1])
while time.time() < end:
    for _ in range(10): a @ b
    torch.cuda.synchronize(); n += 10
el = time.time() - t
print("load: %d products in %.2f s, %.1f TFLOP/s" % (n, el, n * 2 * 8192**3 / el / 1e12))
PY
}
sec smi-idle; smi_times 10
sec load-without-agent; matmul_load 15
sec agent-start
mkdir -p /run/ar && rm -f /run/ar/*
AUTORESUME_LOG_LEVEL=INFO setsid $AR agent --socket /run/ar/agent.sock --audit-log /run/ar/audit.log --node gpunode1 \
    --gpu-check-every 1 --metrics-listen 127.0.0.1:9464 >/run/ar/agent.log 2>&1 < /dev/null &
for i in $(seq 100); do [ -S /run/ar/agent.sock ] && break; sleep 0.2; done
cat /run/ar/agent.log
sec load-with-agent-checking-every-second; matmul_load 15 & load=$!
sleep 5; echo "nvidia-smi under load:"; smi_times 5; wait $load
sec gpu-check-metrics; python3 -c "import urllib.request;print(urllib.request.urlopen('http://127.0.0.1:9464/metrics').read().decode())" | grep -E "gpu_checks|nodes_marked"
sec forged-by-root-and-by-user
echo "<3>NVRM: Xid (PCI:$(basename $(dirname $(grep -l 0x10de /sys/bus/pci/devices/*/vendor | head -1)) | cut -c1-10)): 79, forged by root" > /dev/kmsg
if command -v cc >/dev/null; then
  d=$(mktemp -d); chmod 755 $d; printf 'int main(void){volatile int*p=0;*p=1;return 0;}' > $d/c.c
  cc -o "$d/NVRM: Xid (PCI:0000:3b:00): 79, x" $d/c.c && chmod 755 "$d/NVRM: Xid (PCI:0000:3b:00): 79, x"
  su nobody -s /bin/bash -c "'$d/NVRM: Xid (PCI:0000:3b:00): 79, x'" 2>&1 | tail -1
fi
sec real-xid-from-cuda
date +%s.%N
PYTHONUNBUFFERED=1 timeout 120 python3 - <<'PY'
import time
import cupy as cp
k = cp.RawKernel(r'extern "C" __global__ void k(int* p){ p[((size_t)1)<<38] = 1; }', 'k')
a = cp.zeros(1, dtype=cp.int32)
t = time.time()
try:
    k((1,), (1,), (a,))
    cp.cuda.runtime.deviceSynchronize()
    print("no error?")
except Exception as e:
    print("cuda error at", repr(t), type(e).__name__, str(e)[:200])
PY
for i in $(seq 50); do grep -q '"xid"' /run/ar/audit.log 2>/dev/null && break; sleep 0.2; done
date +%s.%N
sec kmsg-after; dmesg --kernel 2>&1 | tail -8; timeout 1 cat /dev/kmsg | tail -6
sec agent-log; cat /run/ar/agent.log
sec audit; cat /run/ar/audit.log
sec metrics; python3 -c "import urllib.request;print(urllib.request.urlopen('http://127.0.0.1:9464/metrics').read().decode())" | grep -E "xid|kernel_log|nodes_marked"
sec health-after; $AR health --check gpu --json -v; echo "exit=$?"
sec nvidia-smi-after; nvidia-smi --query-gpu=index,pci.bus_id,ecc.errors.uncorrected.volatile.total --format=csv,noheader; echo "exit=$?"
