"""Five-fold cross-validation of the whole understanding pipeline on the TRAIN split only.

This is the figure the act model's features, the policy thresholds and the word rules were tuned on; the held-out
split (bench/eval_understanding.py) is never used for that. Each fold trains the act model on the other four folds
and runs `Conversation.understand` (and, with --turns, the whole turn) on its own, in a chat with a recommendation on
screen, as the labelled follow-ups assume.

    python bench/cv_understanding.py [--turns] [--show ACT|all]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import eval_understanding as ev  # noqa: E402

from bot import acts  # noqa: E402
from bot.dialogue import Conversation, Engine, Session  # noqa: E402
from bot.nlu import parse  # noqa: E402

FOLDS = 5


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", action="store_true", help="also answer each message: refusal rates")
    ap.add_argument("--show", default="", help="print the misses whose gold or predicted act is this ('all')")
    args = ap.parse_args(argv)

    engine = Engine.from_settings()
    train = [u for u in acts.load_utterances(ROOT / "knowledge" / "intents") if u.split == "train"]
    random.Random(0).shuffle(train)
    contexts = {lang: ev.context_session(lang, engine).to_dict() for lang in ("zh", "en")}
    vectors = acts.sentence_vectors(engine.index_dir, [u.text for u in train])  # None: no encoder, n-grams alone
    results = []
    for k in range(FOLDS):
        fit = [i for i in range(len(train)) if i % FOLDS != k]
        engine._acts = acts.train([acts.model_input(parse(train[i].text, engine.catalog)) for i in fit],
                                  [train[i].act for i in fit], f"cv{k}",
                                  None if vectors is None else [vectors[i] for i in fit])
        for u in (u for i, u in enumerate(train) if i % FOLDS == k):
            lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in u.text) else "en"
            turn = Conversation(engine, Session.from_dict(contexts[lang])).understand(u.text)
            reply = Conversation(engine, Session.from_dict(contexts[lang])).turn(u.text) if args.turns else None
            results.append((u, turn, reply))
    accuracy = sum(t.act == u.act for u, t, _ in results) / len(results)
    consulted = sum(bool(t.guess and t.guess.read_the_sentence) for _, t, _ in results) / len(results)
    print(f"{FOLDS}-fold CV on the train split ({len(results)} utterances): act accuracy {accuracy:.3f} "
          f"(sentence vectors {'consulted for ' + format(consulted, '.0%') if vectors else 'unavailable'})")
    if args.turns:
        oos = [(u, r) for u, _, r in results if u.act == "out_of_scope"]
        inscope = [(u, r) for u, _, r in results if u.act != "out_of_scope"]
        answered = sum(r.intent not in ("out_of_scope", "unknown") for _, r in oos)
        refused = sum(r.intent == "out_of_scope" for _, r in inscope)
        print(f"out-of-scope answered {answered}/{len(oos)} ({answered / len(oos):.3f}), "
              f"in-scope refused {refused}/{len(inscope)} ({refused / len(inscope):.3f})")
        if args.show == "refusals":
            for u, r in oos:
                if r.intent not in ("out_of_scope", "unknown"):
                    print(f"  answered ({r.query['act']}/{r.query['rule']}): {u.text}")
            for u, r in inscope:
                if r.intent == "out_of_scope":
                    print(f"  refused ({u.act}): {u.text}")
    print("confusions (gold, predicted):", Counter((u.act, t.act) for u, t, _ in results if t.act != u.act)
          .most_common(12))
    if args.show:
        for u, t, _ in results:
            if t.act != u.act and args.show in ("all", u.act, t.act):
                guess = f"{t.guess.act} {t.guess.confidence:.2f}" if t.guess else "-"
                print(f"  {u.act:>12} -> {t.act:<12} ({guess}) {u.text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
