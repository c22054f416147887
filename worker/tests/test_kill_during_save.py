"""kill -9 of a worker while it saves: the checkpoint directory then holds the last complete save
(weights, optimizer state and step from the same moment) and loads, or nothing replaced it yet."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from envace_worker import trainer_state
from envace_worker.trainer import Trainer

# Trains one step, saves, says so, then keeps stepping and saving into the same directory.
SAVER = textwrap.dedent("""
    import sys
    from envace_worker.model_host import HostOptions, load_host
    from envace_worker.train_batch import parse_forward_backward, parse_optim_step
    from envace_worker.trainer import Trainer
    model, ck = sys.argv[1], sys.argv[2]
    host = load_host(HostOptions(model=model, kl_reference=False))
    tr = Trainer(host)
    fb = parse_forward_backward({"sequences": [{"token_ids": [3, 4, 5, 6], "loss_mask": [0, 1, 1, 1]}]},
                                host.base.config.vocab_size, host.max_context, False)
    o = parse_optim_step({"lr": 1e-2})
    while True:
        tr.forward_backward(fb)
        tr.optim_step(o)
        tr.save(ck, optimizer=True)
        print("saved", tr.step, flush=True)
""")


@pytest.mark.parametrize("delay", [0.1, 0.6])
def test_a_checkpoint_survives_kill_9_during_save(tiny_dir, make_host, tmp_path, delay):
    ck = tmp_path / "ck"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(os.path.dirname(__file__)),
                                                         os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", SAVER, tiny_dir, str(ck)], stdout=subprocess.PIPE, text=True,
                            stderr=subprocess.DEVNULL, env=env)
    try:
        assert proc.stdout.readline().startswith("saved 1")
        time.sleep(delay)   # somewhere inside a later step or save
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    meta = json.loads((ck / "envace_worker.json").read_text())
    state = json.loads((ck / trainer_state.JSON_FILE).read_text())
    assert meta["step"] == state["step"] >= 1
    tr = Trainer(make_host(kl_reference=False))
    tr.check_loadable(str(ck), True)
    assert tr.load(str(ck), True)["step"] == meta["step"]
