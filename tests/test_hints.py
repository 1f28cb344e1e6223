"""Tokenization hints: English scored per character, CJK text under a word tokenizer.

Each must fire (once per metric / call, pointing at the caller), and must not fire on the
shipped examples, the README's commands and blocks, token lists, or the tokenizers that fit.
"""
from __future__ import annotations

import json
import pathlib
import warnings

import pytest
from markdown_docs import blocks

import paddle_rougel
from paddle_rougel import TokenizationHint, compute, rouge_l, rouge_lsum
from paddle_rougel.cli import main
from paddle_rougel.core.hints import SAMPLE, Hinter
from paddle_rougel.core.text import TextSettings

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples" / "dureader").glob("*.jsonl"))
EN = ["The cat sat on the mat", "A dog ran in the park today"]
EN_REF = ["the cat is on the mat", "the dog ran in a park"]
ZH = ["今天天气很好，我们去公园", "北京是中国的首都"]
ZH_REF = ["今天天气不错，我们去公园吧", "中国的首都是北京"]


def hints(fn, *args, **kwargs):
    """The TokenizationHint warnings a call emits (every one, not deduplicated)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return [x for x in w if issubclass(x.category, TokenizationHint)], out


def test_is_a_user_warning():
    assert issubclass(TokenizationHint, UserWarning) and paddle_rougel.TokenizationHint is TokenizationHint


def test_english_under_char_fires_once_per_call_at_the_caller():
    w, out = hints(compute, EN, EN_REF)
    assert len(w) == 1 and w[0].filename == __file__
    msg = str(w[0].message)
    assert "English" in msg and "tokenize='rouge_score'" in msg and "--tokenize rouge_score" in msg
    assert "\n" not in msg
    # the figure is unchanged: a hint, not a different score
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TokenizationHint)
        assert compute(EN, EN_REF) == out
    for fn in (rouge_l, rouge_lsum):
        assert len(hints(fn, EN, EN_REF)[0]) == 1, fn


def test_once_per_metric():
    from paddle_rougel import RougeL, RougeLForDuReader, RougeLsum

    for cls in (RougeL, RougeLForDuReader, RougeLsum):
        m = cls()

        def feed():
            m.add_inst(EN[0], [EN_REF[0]])
            m.add_batch(EN, [[r] for r in EN_REF])
            m.add_inst(EN[1], [EN_REF[1]])
        w, _ = hints(feed)
        assert len(w) == 1 and w[0].filename == __file__, (cls, w)
        assert len(hints(cls().add_batch, EN, [[r] for r in EN_REF])[0]) == 1  # a new metric: again


def test_bleu_metric_too():
    from paddle_rougel import BLEUForDuReader

    m = BLEUForDuReader()
    w, _ = hints(lambda: [m.add_inst(c, [r]) for c, r in zip(EN * 3, EN_REF * 3)])
    assert len(w) == 1


def test_a_hint_raised_as_an_error_leaves_the_metric_as_it_was():
    from paddle_rougel import RougeL

    m = RougeL()
    m.add_inst(["the", "cat"], [["the", "dog"]])  # token lists: not looked at
    before = m.state_dict()
    with warnings.catch_warnings():
        warnings.simplefilter("error", TokenizationHint)
        with pytest.raises(TokenizationHint):
            m.add_inst(EN[0], [EN_REF[0]])
    assert m.state_dict() == before


def test_cjk_without_spaces_under_word_tokenizers_fires():
    w, _ = hints(compute, ZH, ZH_REF, tokenize="whitespace")
    assert len(w) == 1 and "tokenize='zh'" in str(w[0].message) and "whitespace" in str(w[0].message)
    w, out = hints(compute, ZH, ZH_REF, tokenize="rouge_score")
    assert len(w) == 1 and "rouge_score" in str(w[0].message) and out["rougeL"] == 0.0
    # rouge_score drops CJK however it is spaced
    spaced = [" ".join(s) for s in ZH]
    assert len(hints(compute, spaced, ZH_REF, tokenize="rouge_score")[0]) == 1


@pytest.mark.parametrize("preds,refs,kw", [
    (ZH, ZH_REF, {}),                                                 # Chinese, characters
    (EN, EN_REF, {"tokenize": "rouge_score"}),                        # English, words
    (EN, EN_REF, {"tokenize": "whitespace"}),
    (EN, EN_REF, {"tokenize": "zh"}),
    (ZH, ZH_REF, {"tokenize": "zh"}),
    (EN, EN_REF, {"tokenize": str.split}),                            # a callable: the user's choice
    (["今天 天气 很 好", "北京 是 中国 的 首都"], ["今天 天气 不错", "中国 的 首都 是 北京"],
     {"tokenize": "whitespace"}),                                     # segmented Chinese
    (["abcd", "ACGTACGT"], ["abce", "ACGTTCGT"], {}),                  # letters, no words
    ([EN[0], ZH[0]], [EN_REF[0], ZH_REF[0]], {}),                      # half English: no majority
    ([[1, 2, 3]], [[1, 2]], {}),                                      # token lists: scored as given
    ([EN[0].split()], [EN_REF[0].split()], {}),
])
def test_no_hint_where_the_settings_fit(preds, refs, kw):
    assert hints(compute, preds, refs, **kw)[0] == []


def test_the_sample_is_bounded():
    # Chinese under char: nothing to say; after SAMPLE strings the metric stops looking
    h = Hinter(TextSettings())
    for _ in range(SAMPLE):
        h(["今天天气很好"], [["今天天气不错"]])
    assert h.done and h.seen == SAMPLE
    # later English is not looked at: the decision was taken on the sample
    assert hints(h, EN * 10, [[r] for r in EN_REF * 10])[0] == []
    # a string is looked at in its first 2,000 characters only: English after 2,000 CJK ones is
    # not seen (looked at whole, it would be)
    long = "今" * 2000 + " the cat sat on the mat" * 1000
    assert hints(Hinter(TextSettings()), [long] * 3, [[long]] * 3)[0] == []
    assert Hinter(TextSettings()).verdict([long] * 3) is not None
    # nothing to look for under zh, jieba or a callable
    for tok in ("zh", "jieba", str.split):
        assert Hinter(TextSettings(tokenize=tok)).done


def _example_rows(path):
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [a for r in rows for a in r.get("answers", [])]


def test_shipped_examples_do_not_fire():
    assert len(EXAMPLES) == 3
    from paddle_rougel import BLEUForDuReader, RougeL, RougeLForDuReader

    for path in EXAMPLES:
        answers = _example_rows(path)
        assert len(answers) >= 10
        pairs = (answers, [[a] for a in reversed(answers)])
        for kw in ({}, {"normalize": "nows"}, {"tokenize": "zh"}, {"tokenize": "jieba"}):
            assert hints(compute, *pairs, **kw)[0] == [], (path, kw)
        for cls in (RougeL, RougeLForDuReader, BLEUForDuReader):
            assert hints(cls().add_batch, *pairs)[0] == [], (path, cls)


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _warnings(err):
    return [ln for ln in err.splitlines() if "warning" in ln]


def test_cli_dureader_examples_and_presets(capsys):
    pred, ref = str(ROOT / "examples/dureader/pred.jsonl"), str(ROOT / "examples/dureader/ref.jsonl")
    for extra in ([], ["--config", "dureader"], ["--config", "paddlenlp"], ["--tokenize", "zh"]):
        rc, out, err = run(capsys, "dureader", "--pred_file", pred, "--ref_file", ref, *extra)
        assert rc == 0 and _warnings(err) == [], (extra, err)
    for b in ("pred_b.jsonl",):
        rc, out, err = run(capsys, "compare", "--ref_file", ref, "--pred_file", pred,
                           "--pred_file", str(ROOT / "examples/dureader" / b), "--resamples", "50")
        assert rc == 0 and _warnings(err) == [], err
    # the meaningless score: rouge155 tokens (rouge_score) drop Chinese
    rc, out, err = run(capsys, "dureader", "--pred_file", pred, "--ref_file", ref, "--config", "rouge155")
    assert rc == 0 and json.loads(out)["ROUGE-L"] == 0.0  # rouge_score drops every CJK character
    (line,) = _warnings(err)
    assert line.startswith("paddle-rougel: warning: ") and "--tokenize zh" in line


def test_cli_score_english(capsys, tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(EN) + "\n", encoding="utf-8")
    ref.write_text("\n".join(EN_REF) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(ref))
    (line,) = _warnings(err)
    assert rc == 0 and "--tokenize rouge_score" in line and "spaces removed" in line
    assert json.loads(out)["ROUGE-L"] == 75.9  # the README's figures: per character, then per word
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), "--tokenize", "rouge_score")
    assert json.loads(out)["ROUGE-L"] == 72.87
    # a tokenizer named by a flag or a config file: the user chose it
    for extra in (["--tokenize", "char"], ["--config", "dureader"], ["--tokenize", "rouge_score"],
                  ["--config", "rouge155"]):
        rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), *extra)
        assert rc == 0 and _warnings(err) == [], (extra, err)
    # Chinese under rouge155 (whitespace named by the config) is still hinted
    hyp.write_text("\n".join(ZH) + "\n", encoding="utf-8")
    ref.write_text("\n".join(ZH_REF) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), "--config", "rouge155")
    assert rc == 0 and len(_warnings(err)) == 1
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(ref))
    assert rc == 0 and _warnings(err) == []


def test_readme_commands_do_not_fire(capsys):
    """The commands of README.md and every docs/*.md page (tests/markdown_docs.py)."""
    cmds = [c for _, block in blocks("bash")
            for c in block.splitlines() if c.startswith("paddle-rougel ") and "examples/" in c]
    assert len(cmds) >= 2
    for c in cmds:
        argv = c.split("#")[0].split()[1:]
        rc, out, err = run(capsys, *argv)
        assert rc == 0 and _warnings(err) == [], (c, err)


def test_readme_python_blocks_do_not_fire(capsys):
    found = [(f, b) for f, b in blocks("python") if not b.startswith("# fragment")]
    assert len(found) >= 5
    for f, b in found:
        with warnings.catch_warnings():
            warnings.simplefilter("error", TokenizationHint)
            exec(compile(b, f, "exec"), {"__name__": "readme"})


def test_cjk_sample_counts_match_the_definition_on_ascii_and_mixed_text():
    """The CJK hint skips its regex passes for ASCII strings (none holds a CJK character):
    its counts must equal the definition (a string counts when it has a character that is not
    whitespace, ``\\s``; a hit when more than half of those are CJK) on strings of every ASCII
    character, whitespace-only ones (\\x1c-\\x1f, \\v, \\f too) and CJK ones mixed in."""
    import random
    import re

    rng = random.Random(7)
    ascii_chars = [chr(c) for c in range(128)]
    spaces = [c for c in ascii_chars if re.match(r"\s", c)]
    assert "\x1c" in spaces and "\x0b" in spaces  # the oracle's own whitespace, not str.isspace
    pieces = ascii_chars + spaces * 8 + list("今天天气很好")
    for tokenize in ("whitespace", "rouge_score"):
        for _ in range(40):
            texts = ["".join(rng.choice(pieces if rng.random() < 0.3 else spaces) for _ in range(rng.randint(0, 6)))
                     for _ in range(rng.randint(1, SAMPLE))]
            h = Hinter(TextSettings(tokenize))
            h.verdict(texts)
            nonspace = [len(s) - len(re.findall(r"\s", s)) for s in texts]
            cjk = [len(re.findall("[今天气很好]", s)) for s in texts]
            assert h.seen == len(texts)
            assert h.n == sum(1 for k in nonspace if k)
            assert h.hits == sum(1 for k, c in zip(nonspace, cjk) if k and 2 * c > k)
