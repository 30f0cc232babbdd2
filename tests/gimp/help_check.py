"""Checks the help pages a plug-in installed (ui/help_pages.h), independently of the C that
wrote them: Python's XML and HTML parsers, and the .po catalogues read here.

  help_check.py pages HELPDIR PODIR   one PASS/FAIL line per check, for every language
                                      folder in HELPDIR (en, and one per PODIR/*.po)
  help_check.py args PAGE             the Script-Fu argument names of PAGE, one a line
  help_check.py example PAGE          PAGE's example call with the defaults
"""
import html.parser
import os
import re
import sys
import xml.etree.ElementTree as ET

VOID = {"meta", "br", "img"}


class Page(html.parser.HTMLParser):
    """Well-formedness (every element closed in order) and the parts the tests read."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []
        self.lang, self.text, self.codes, self.pres, self.links = None, [], [], [], []
        self.title = None
        self.rows = {}  # settings table: parameter name -> its cells' text
        self._cell, self._row = None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang")
        if tag == "a":
            self.links.append(attrs.get("href"))
        if tag == "img":
            self.links.append(attrs.get("src"))
        if tag == "tr":
            self._row = attrs.get("id")
            if self._row:
                self.rows[self._row] = []
        if tag in ("code", "pre", "h2", "td", "title"):
            self._cell = (tag, [])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if self._cell and self._cell[0] == tag:
            text = "".join(self._cell[1])
            {"code": self.codes, "pre": self.pres}.get(tag, []).append(text)
            if tag == "title":
                self.title = text
            if tag == "td" and self._row:
                self.rows[self._row].append(text)
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell:
            self._cell[1].append(data)


def read_page(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    p.close()
    if p.stack:
        p.errors.append(f"unclosed {p.stack}")
    return p


def read_po(path):
    """msgid -> msgstr of a catalogue (plain entries; fuzzy and empty ones left out)."""
    out, entry, key, fuzzy = {}, {}, None, False

    def flush():
        if entry.get("msgid") and entry.get("msgstr") and not fuzzy:
            out[entry["msgid"]] = entry["msgstr"]

    unquote = lambda s: bytes(s[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                flush()
                entry, key, fuzzy = {}, None, False
            elif line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            elif line.startswith(("msgid ", "msgstr ", "msgctxt ")):
                key, rest = line.split(" ", 1)
                entry[key] = unquote(rest)
            elif line.startswith('"') and key:
                entry[key] += unquote(line)
    flush()
    return out


def plain(label):
    return re.sub(r"_(.)", r"\1", label)


def check_pages(helpdir, podir):
    """One line per language's map and per page: PASS, or FAIL with every problem found."""
    langs = ["en"] + sorted(f[:-3] for f in os.listdir(podir) if f.endswith(".po"))
    results, english = [], {}

    def report(name, problems):
        results.append(f"FAIL {name}: " + "; ".join(problems) if problems else f"PASS {name}")

    for lang in langs:
        d = os.path.join(helpdir, lang)
        try:
            root = ET.parse(os.path.join(d, "gimp-help.xml")).getroot()
        except (OSError, ET.ParseError) as e:
            report(f"{lang}-map", [str(e)])
            continue
        items = {i.get("id"): i.get("ref") for i in root.iter("help-item")}
        missing = root.find("help-missing")
        report(f"{lang}-map", [] if root.tag == "gimp-help" and items and missing is not None
               and missing.get("ref") in items.values()
               else [ET.tostring(root, encoding="unicode")[:200]])
        catalogue = read_po(os.path.join(podir, lang + ".po")) if lang != "en" else {}
        for proc, ref in items.items():
            name, problems = f"{lang}-{proc}-page", []
            path = os.path.join(d, ref)
            if ref != proc + ".html" or not os.path.isfile(path):
                report(name, [f"{ref} is not {proc}.html in {d}"])
                continue
            page = read_page(path)
            problems += page.errors[:3]
            if page.lang != lang.replace("_", "-"):
                problems.append(f"lang {page.lang}")
            problems += [f"link {h} leads nowhere" for h in page.links
                         if not os.path.isfile(os.path.join(d, h))]
            if not page.rows or not page.codes:
                problems.append("no settings or no arguments")
            if lang == "en":
                english[proc] = page
                report(name, problems)
                continue
            en = english[proc]
            # The same settings, arguments and calls as the English page, its words translated.
            if list(page.rows) != list(en.rows) or page.codes != en.codes or page.pres != en.pres:
                problems.append(f"settings {list(page.rows)}, arguments {page.codes} differ from English")
            text = "".join(page.text)
            problems += [f"English heading {h!r}" for h in
                         ("Settings", "Batch mode (Script-Fu)", "Command line") if h in text]
            if page.title == en.title or page.title not in catalogue.values():
                problems.append(f"title {page.title!r} not translated")
            for row, cells in en.rows.items():
                want = {plain(catalogue[m]) for m in catalogue if plain(m) == cells[0]}
                if page.rows.get(row, [""])[0] not in want:
                    problems.append(f"{row} labelled {page.rows.get(row, ['?'])[0]!r}, not {want}")
            report(name, problems)
    return results


def main():
    cmd = sys.argv[1]
    if cmd == "pages":
        results = check_pages(sys.argv[2], sys.argv[3])
        print("\n".join(results))
        return 0
    page = read_page(sys.argv[2])
    if cmd == "args":
        print("\n".join(page.codes))
    elif cmd == "example":
        print(next(p for p in page.pres if p.startswith("(")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
