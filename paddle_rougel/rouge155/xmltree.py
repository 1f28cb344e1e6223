"""A light DOM of a ROUGE config for :func:`paddle_rougel.rouge155.config.read_evals`.

``xml.dom.minidom`` builds a full DOM (about 0.35 s for 3,000 evaluations); a config is
elements, attributes and text, so :func:`parse` builds just those with expat: the nodes carry
minidom's names (``nodeType``, ``nodeName``, ``childNodes``, ``data``, ``getAttributeNode``)
and its text rule (adjacent character data is one text node).  Anything else (a DOCTYPE, a
comment, CDATA, a processing instruction, a namespace prefix) makes :func:`parse` return None:
the caller then parses with minidom, whose nodes those are.
"""
from __future__ import annotations

from typing import Dict, List, Optional
from xml.dom import Node
from xml.parsers import expat

__all__ = ["parse", "error_byte"]


class _Attr:
    __slots__ = ("value",)

    def __init__(self, value: str):
        self.value = value


class _Text:
    __slots__ = ("data",)
    nodeType = Node.TEXT_NODE
    childNodes: List = []

    def __init__(self, data: str):
        self.data = data


class _Element:
    __slots__ = ("nodeName", "childNodes", "_attrs")
    nodeType = Node.ELEMENT_NODE

    def __init__(self, name: str, attrs: Dict[str, str]):
        self.nodeName, self.childNodes, self._attrs = name, [], attrs

    def getAttributeNode(self, name: str) -> Optional[_Attr]:
        v = self._attrs.get(name)
        return None if v is None else _Attr(v)


class _Document:
    nodeType = Node.DOCUMENT_NODE

    def __init__(self):
        self.childNodes: List = []


class _Other(Exception):
    """A node this light DOM does not build."""


def parse(data: bytes) -> Optional[_Document]:
    """The document, or None when it holds more than elements and text (or is not well formed:
    minidom then says why)."""
    if b"<!" in data or data.count(b"<?") > (1 if data.lstrip().startswith(b"<?xml") else 0):
        return None
    doc = _Document()
    stack: List = [doc]

    def start(name, attrs):
        if ":" in name or any(":" in a or a == "xmlns" for a in attrs):
            raise _Other(name)
        el = _Element(name, attrs)
        stack[-1].childNodes.append(el)
        stack.append(el)

    def end(name):
        stack.pop()

    def text(s):
        kids = stack[-1].childNodes
        if kids and kids[-1].nodeType == Node.TEXT_NODE:
            kids[-1].data += s
        elif stack[-1] is not doc:
            kids.append(_Text(s))

    def other(*args):
        raise _Other("node")

    p = expat.ParserCreate()
    p.buffer_text = True
    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, text
    p.ProcessingInstructionHandler = p.CommentHandler = p.StartCdataSectionHandler = other
    p.StartDoctypeDeclHandler = other
    try:
        p.Parse(data, True)
    except (_Other, expat.ExpatError):
        return None
    return doc


def error_byte(data: bytes, line: int, column: int) -> int:
    """The byte offset of expat's (line, column) in ``data`` (XML::Parser prints both)."""
    lines = data.split(b"\n")
    return sum(len(x) + 1 for x in lines[:max(0, line - 1)]) + column
