"""Which users RecBole 1.2.1's evaluation scores: its own data pipeline (create_dataset, data_preparation) on a tiny
dataset whose user u3 has one interaction, which the per-user 80/10/10 split puts in training, so u3 has no test row.
The test dataloader (FullSortEvalDataLoader) lists its users in uid_list: u3 is not among them, so RecBole never scores
a user without test rows (the recbole preset's default; recbole:users=run scores such a user 0, as RecBole's metric
does when given one). Run in a venv with recbole 1.2.1 (pip install --no-deps recbole==1.2.1, colorlog, colorama,
texttable, tensorboard): writes probe_recbole_users.json. NumPy 2 lacks aliases RecBole sets or reads: lent here."""
import json
import tempfile
from pathlib import Path


def probe():
    import logging
    import numpy as np
    for name, value in (("float", float), ("int", int), ("float_", np.float64), ("complex_", np.complex128),
                        ("unicode_", np.str_)):
        if name not in np.__dict__:
            setattr(np, name, value)
    logging.disable(logging.WARNING)
    from recbole.config import Config
    from recbole.data import create_dataset, data_preparation
    interactions = [(u, f"i{i}") for u, n in (("u1", 10), ("u2", 10), ("u3", 1)) for i in range(n)]
    interactions += [("u4", f"i{i}") for i in range(10, 20)]    # so that no user has interacted with every item
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "tiny").mkdir()
        lines = ["user_id:token\titem_id:token\trating:float\ttimestamp:float"]
        lines += [f"{u}\t{i}\t1\t{t}" for t, (u, i) in enumerate(interactions, 1)]
        (Path(root) / "tiny" / "tiny.inter").write_text("\n".join(lines) + "\n")
        config = Config(model="Pop", dataset="tiny", config_dict={
            "data_path": root, "checkpoint_dir": root, "show_progress": False,
            "load_col": {"inter": ["user_id", "item_id", "rating", "timestamp"]},
            "eval_args": {"split": {"RS": [0.8, 0.1, 0.1]}, "group_by": "user", "order": "TO", "mode": "full"}})
        dataset = create_dataset(config)
        _, _, test = data_preparation(config, dataset)
        names = dataset.field2id_token["user_id"]
        return {"users": [str(u) for u in names[1:]],
                "test_rows": {str(names[u]): int(test.uid2items_num[u]) for u in range(1, dataset.user_num)},
                "evaluated_users": [str(names[u]) for u in test.uid_list.tolist()]}


if __name__ == "__main__":
    from importlib.metadata import version
    found = {"recbole": version("recbole"), **probe()}
    path = Path(__file__).resolve().parent.parent / "data" / "conventions" / "probe_recbole_users.json"
    path.write_text(json.dumps(found, indent=1) + "\n")
    print(found)
