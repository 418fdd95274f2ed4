"""Runs cells through jupyter_client and prints what the notebook got.

Usage: /usr/bin/python3 cells.py KERNEL_NAME CELLS.json

CELLS.json is a list of {"code": ..., "interrupt_after": seconds or 0,
"drain": seconds}: each cell is executed in turn; interrupt_after
interrupts it with KernelManager.interrupt_kernel (the kernelspec's
interrupt_mode), drain keeps reading its output after the kernel went
idle. Prints a JSON list, one object per cell: status, execution_count,
ename, evalue, traceback, stdout, stderr, result (text/plain), and pid:
the kernel process's id when the cell ended, and alive.
"""
import json
import sys
import time

from jupyter_client.manager import start_new_kernel


def run(kc, km, cell):
    msg_id = kc.execute(cell["code"], allow_stdin=False)
    if cell.get("interrupt_after"):
        time.sleep(cell["interrupt_after"])
        km.interrupt_kernel()
    got = {"stdout": "", "stderr": "", "result": None, "ename": None, "evalue": None, "traceback": []}
    idle_at = None
    while True:
        timeout = 60
        if idle_at is not None:
            timeout = cell.get("drain", 0) - (time.time() - idle_at)
            if timeout <= 0:
                break
        try:
            m = kc.get_iopub_msg(timeout=timeout)
        except Exception:
            if idle_at is None:
                raise
            break
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        t, c = m["msg_type"], m["content"]
        if t == "stream":
            got[c["name"]] += c["text"]
        elif t == "execute_result":
            got["result"] = c["data"].get("text/plain")
        elif t == "error":
            got.update(ename=c["ename"], evalue=c["evalue"], traceback=c["traceback"])
        elif t == "status" and c["execution_state"] == "idle" and idle_at is None:
            idle_at = time.time()
    reply = kc.get_shell_msg(timeout=60)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=60)
    got["status"] = reply["content"]["status"]
    got["execution_count"] = reply["content"].get("execution_count")
    got["pid"] = km.provisioner.process.pid
    got["alive"] = km.is_alive()
    return got


def main():
    cells = json.load(open(sys.argv[2]))
    km, kc = start_new_kernel(kernel_name=sys.argv[1], startup_timeout=60)
    try:
        print(json.dumps([run(kc, km, c) for c in cells]))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


main()
