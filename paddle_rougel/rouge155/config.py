"""ROUGE-1.5.5.pl's inputs: its command line (``Getopt::Std``), the XML evaluation config
(``readEvals``), the ``-z`` file list (``readFileList``) and the WordNet DB's key count.

An evaluation is a dict as the script's ``%ROUGEEvals`` entry: ``PR`` / ``MR`` (peer and model
roots), ``IF`` (input format), ``Ps`` ({peer id: file}), ``MIDList`` (model ids in order) and
``Ms`` ({model id: file}).
"""
from __future__ import annotations

import os
import re
import struct
from typing import Dict, List, Optional, Tuple
from xml.dom import Node, minidom
from xml.parsers import expat

from . import xmltree
from .text import ScriptError

__all__ = ["OPTSPEC", "getopts", "perl_num", "read_evals", "read_file_list", "db_key_count"]

OPTSPEC = "ahHb:c:de:f:l:mMn:p:st:r:2:3:w:uUvxz:"
_EVAL = re.compile(r"(?i)EVAL\n?")
_INPUT = re.compile(r"(?i)INPUT-FORMAT\n?")
_ROOT = re.compile(r"(?i)(PEER|MODEL)-ROOT\n?")
_LISTS = re.compile(r"(?i)(PEERS|MODELS)\n?")
_NUM = re.compile(r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))", re.I)


def perl_num(s) -> float:
    """A string's numeric value as Perl takes it (its leading number; 0 if none)."""
    if isinstance(s, (int, float)):
        return s
    m = _NUM.match(s)
    if not m:
        return 0
    text = m.group(1)
    v = float(text)
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return v


def getopts(argv: List[str], spec: str = OPTSPEC) -> Tuple[Dict[str, str], List[str], List[str]]:
    """Getopt::Std's ``getopts``: (options, the arguments left, warnings).  A flag is ``"1"``."""
    args = list(argv)
    opts: Dict[str, str] = {}
    warnings = []
    while args and re.match(r"-(.)(.*)", args[0], re.S):
        m = re.match(r"-(.)(.*)", args[0], re.S)
        first, rest = m.group(1), m.group(2)
        if args[0] == "--":
            args.pop(0)
            break
        pos = spec.find(first)
        if pos >= 0:
            if pos + 1 < len(spec) and spec[pos + 1] == ":":
                args.pop(0)
                if rest == "":
                    if not args:
                        warnings.append(f"Option {first} requires an argument")
                        opts[first] = None
                        continue
                    rest = args.pop(0)
                opts[first] = rest
            else:
                opts[first] = "1"
                if rest == "":
                    args.pop(0)
                else:
                    args[0] = "-" + rest
        else:
            warnings.append(f"Unknown option: {first}")
            if rest != "":
                args[0] = "-" + rest
            else:
                args.pop(0)
    return opts, args, warnings


def _strip(s: str) -> str:
    return re.sub(r"[\n\s]+\Z", "", re.sub(r"\A[\n\s]+", "", s))


def _attr(node, name: str, evals_tag: str) -> str:
    a = node.getAttributeNode(name)
    if a is None:
        raise ScriptError(f"Can't call method \"getValue\" on an undefined value ({evals_tag} without {name})\n")
    return a.value


def read_evals(path: str) -> Tuple[Dict[str, dict], List[str], List[str]]:
    """(evaluations by id, their ids in document order, the peer ids) of an XML config."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:   # XML::DOM's parsefile
        raise ScriptError(f"Couldn't open {path}:\n{e.strerror} at ROUGE-1.5.5.pl line 501.\n", e.errno or 255) from None
    try:
        doc = xmltree.parse(data)
        if doc is None:   # more than elements and text: minidom's nodes
            doc = minidom.parseString(data)
    except expat.ExpatError as e:   # XML::Parser's message (expat's, at the same place)
        raise ScriptError(f"{expat.ErrorString(e.code)} at line {e.lineno}, column {e.offset}, "
                          f"byte {xmltree.error_byte(data, e.lineno, e.offset)} in {path}\n") from None
    except Exception as e:  # noqa: BLE001 - XML::DOM dies on any parse error too
        raise ScriptError(f"{path}: {e}\n") from None
    evals: Dict[str, dict] = {}
    ids: List[str] = []
    peers: Dict[str, int] = {}

    def need(eid):
        if eid not in evals:
            raise ScriptError(f"Evaluation database does not contain entry for this evaluation ID: {eid}\n")
        return evals[eid]

    def text_of(node):
        out = None
        for ch in node.childNodes:
            if ch.nodeType == Node.TEXT_NODE:
                out = _strip(ch.data)
        return out

    def walk(node, eid):
        if node.nodeType == Node.ELEMENT_NODE:
            name = node.nodeName
            if _EVAL.fullmatch(name):
                eid = _attr(node, "ID", "EVAL")
                if eid not in evals:
                    evals[eid] = {}
                    ids.append(eid)
                for ch in node.childNodes:
                    walk(ch, eid)
            elif _INPUT.fullmatch(name):
                fmt = _attr(node, "TYPE", "INPUT-FORMAT")
                if not re.fullmatch(r"(?i)(SEE|ISI|SPL|SIMPLE)\n?", fmt):
                    raise ScriptError(f"Unknown input type: {fmt}\n")
                need(eid)["IF"] = fmt
            elif _ROOT.fullmatch(name):
                for ch in node.childNodes:
                    if ch.nodeType == Node.TEXT_NODE:
                        need(eid)["PR" if name.upper().startswith("PEER") else "MR"] = _strip(ch.data)
            elif _LISTS.fullmatch(name):
                peer = name.upper().startswith("PEER")
                tag = "P" if peer else "M"
                for ch in node.childNodes:
                    if ch.nodeType == Node.ELEMENT_NODE and re.fullmatch(f"(?i){tag}\n?", ch.nodeName):
                        cid = _attr(ch, "ID", tag)
                        if peer:
                            peers.setdefault(cid, 1)
                        ev = need(eid)
                        ev.setdefault("Ps" if peer else "Ms", {})
                        ev.setdefault("PIDList" if peer else "MIDList", []).append(cid)
                        f = text_of(ch)
                        if f is not None:
                            ev["Ps" if peer else "Ms"][cid] = f
            else:
                for ch in node.childNodes:
                    walk(ch, eid)
        elif node.nodeType == Node.DOCUMENT_NODE or node.childNodes:
            for ch in node.childNodes:
                walk(ch, eid)

    walk(doc, None)
    return evals, ids, list(peers)


def read_file_list(path: str, fmt: str, system_id: str) -> Tuple[Dict[str, dict], List[str], List[str]]:
    """``-z FORMAT``: one evaluation a line, ``peer model1 model2 ...`` (ids 1, 2, ...; the
    peer's id the system id, the models' ``M.1``, ``M.2``, ...); ``#`` lines are comments."""
    try:
        with open(path, "rb") as f:
            data = f.read().decode("latin-1")
    except OSError as e:
        raise ScriptError(f"Cannot open {path}\n", e.errno or 255) from None
    evals: Dict[str, dict] = {}
    ids: List[str] = []
    n = 1
    for line in re.findall(r"[^\n]*\n|[^\n]+\Z", data):
        if line.startswith("#") or re.fullmatch(r"\s*", line, re.A):
            continue
        files = re.split(r"\s+", line.strip(" \t\n\r\f\v"), flags=re.A)
        if len(files) < 2:
            raise ScriptError("File list has to have at least 2 filenames per line (peer model1 model2 ... modelN)\n")
        eid = str(n)
        mids = [f"M.{k}" for k in range(1, len(files))]
        evals[eid] = {"IF": fmt, "Ps": {system_id: files[0]}, "PIDList": [system_id],
                      "MIDList": mids, "Ms": dict(zip(mids, files[1:]))}
        ids.append(eid)
        n += 1
    return evals, ids, [system_id]


def db_key_count(path: str) -> Optional[int]:
    """The number of keys a Berkeley DB hash file (DB_File's ``$DB_HASH``) holds (its meta
    page's ``nelem``), or None when the file is not one."""
    try:
        with open(path, "rb") as f:
            head = f.read(92)
    except OSError:
        return None
    if len(head) < 92:
        return None
    for order in "<>":
        if struct.unpack(order + "I", head[12:16])[0] == 0x061561:
            return struct.unpack(order + "I", head[88:92])[0]
    return None


def exists(path: str) -> bool:
    return os.path.exists(path)
