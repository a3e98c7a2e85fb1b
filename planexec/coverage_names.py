"""Method names a clause gives that the library never names: "segment with a U-Net", "infer spikes with MLspike".

The reuse lexicon (`planexec.knowledge.reuse`) only knows the methods someone listed, so a
method nobody listed slips through on wording: "segment the cells with Mask R-CNN" embeds close
to "segment the cells" and was served by blob detection. A clause that names a method no tool or
capability names is not covered by any of them. A method name is read from its form (an acronym,
an internal capital, a capitalised word inside the clause, letters with digits: PCA, MLspike,
Kalman, BM3D, t-SNE) or from a short list of method families written in lower case ("optical
flow", "random forest"). A name counts as known when a word of the library says it, or when it is
the initials of consecutive library words (MIP: maximum intensity projection; LoG: Laplacian of
Gaussian).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from planexec.knowledge.reuse import normalise_notation

_TOKEN = re.compile(r"[^\W_][\w'’-]*[^\W_]|[^\W_]", re.UNICODE)
_UNIT = re.compile(r"^\d+(?:\.\d+)?(?:st|nd|rd|th|px|hz|khz|ms|s|x|d|um|µm|nm|%)?$", re.IGNORECASE)
# A quantity written as one word names no method: "10-minute", "2-photon", "3-fold", "512x512"
_QUANTITY = re.compile(r"^\d+(?:\.\d+)?(?:st|nd|rd|th)?-[a-z]+$|^\d+(?:x\d+)+$", re.IGNORECASE)
# A greeting or sign-off and the name after it ("Best, Kenji", "Thanks, M.", "Dear Dr Okafor")
_SIGN_OFF = re.compile(r"(?:(?i:best(?: wishes| regards)?|many thanks|thanks|thank you|thx|ta|cheers|regards|sincerely),|"
                       r"\b(?i:dear|hi|hello|hey|hiya))\s+((?:(?:Dr|Prof)\.?\s+)?[A-Z][\w.'’-]*(?:\s+[A-Z][a-z][\w'’-]*)?)")
_AUTHORS = re.compile(r"\b(?:of|by|from|after|following|per|see|cf\.?) [A-ZÀ-Þ][a-zà-ÿ'’]+(?:-[A-ZÀ-Þ][a-zà-ÿ'’]+)?"
                      r"(?:(?:,? and |, | & )[A-ZÀ-Þ][a-zà-ÿ'’]+(?:-[A-ZÀ-Þ][a-zà-ÿ'’]+)?)+(?: et al\.?)?(?:,? \(?(?:19|20)\d\d\)?)?|"
                      r"[A-ZÀ-Þ][a-zà-ÿ'’]+(?:-[A-ZÀ-Þ][a-zà-ÿ'’]+)?(?:(?:,? and |, | & )[A-ZÀ-Þ][a-zà-ÿ'’]+(?:-[A-ZÀ-Þ][a-zà-ÿ'’]+)?)+"
                      r"(?: et al\.?|,? \(?(?:19|20)\d\d\)?)|"
                      r"[A-ZÀ-Þ][a-zà-ÿ'’]+(?:-[A-ZÀ-Þ][a-zà-ÿ'’]+)?(?: et al\.?(?:,? \(?(?:19|20)\d\d\)?)?|,? \(?(?:19|20)\d\d\)?)")
"""Authors cited ("the band depth of López-Pintado and Romo", "Sun & Genton 2011", "Pachitariu et al."): whose
method it is, not another method; names joined by "and" need "of"/"by" before them or a year after ("denoise with Kalman
and Wiener filters" still names two methods), a single name "et al." or a year ("denoise by BM4D" still names one)."""
_NOTATION = re.compile(r"[δΔ]\s*[fF]\s*/\s*[fF]0?|\bd[fF]\s*/\s*[fF]0?|\b[fF]0\b|\bdR\s*/\s*R\b|"
                       r"\b[dD]elta ?[fF](?: over | ?/ ?)[fF]0?\b")
_COMMON = frozenset("i hz khz ms px sd sds std id ids ok".split())
# Words a user capitalises that name no method: courtesy, pronouns, and the preparation (indicator, line, area)
_PLAIN = frozenset("please could can would will may might should i i'll i'd i'm we we're our my hi hello thanks thank "
                   "dear also just so then now here there this that these those it its what which how when where why "
                   "who quick monday tuesday wednesday thursday friday saturday sunday january february march april "
                   "june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec".split())
_PREPARATION = re.compile(r"^(?:j?gcamp\w*|j?rgeco\w*|r?camp\d\w*|[678][fsm]|thy1\S*|ogb\S*|cal-?\d+\w*|[vsma][1-5]|ca[1-3]|"
                          r"l[1-6]|ai\d+\w*|\w+-cre|cre|dg|[mdv]?pfc|acc|lgn|olfactory|[123]p|ofc|rsc|ppc|vta|nac|bla|mec|lec|sc|m[12]|a1|v2)$", re.IGNORECASE)
_QUOTED = re.compile(r"(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"|“[^”]*”")  # an apostrophe ("Bex's run ... ROI's") opens no quote
# How the data was acquired, in parentheses ("(GCaMP6s, 30 Hz, 16x Nikon)") or as a source ("a Nikon scope",
# "the European Excel export"): names of hardware, software and places there are no methods asked
_ACQUISITION = re.compile(r"\([^()]*(?:\d\s*(?:hz|fps)\b|\b\d+x\b|\bNA\b)[^()]*\)", re.IGNORECASE)
_SOURCE = re.compile(r"(?:\b[A-Z][\w-]*\s+){1,3}(?=(?:exports?|files?|format|microscopes?|objectives?|cameras?|rigs?|"
                     r"scopes?|software|spreadsheets?|workbooks?|dumps?|notebooks?|scripts?|toolbox(?:es)?|packages?)\b)")
# A label of the data ("FOV2", "m3", "day2", "plane1") and a place people work ("my collaborator in Zurich") name no method
_LABEL = re.compile(r"^(?:fov|roi|plane|session|sess|day|mouse|m|animal|slice|run|trial|field|site|cohort|batch|rig|room|"
                    r"cell|z)\d+[a-z]?$", re.IGNORECASE)
_PLACE = re.compile(r"\b(?:collaborators?|colleagues?|labs?|groups?|teams?|students?|postdocs?|partners?|friends?|people|folks|"
                    r"institutes?|universit(?:y|ies)|department|consortium|reviewers?|office|campus)\s+(?:in|at|from)\s+"
                    r"([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)")
# A cell type, area or animal line named before what it names ("Purkinje cells", "Fmr1 KO slices") is no method
_ANATOMY = re.compile(r"(?:\b[A-Z][\w-]*\s+){1,2}(?=(?:cells?|neurons?|interneurons?|layers?|cortex|nucleus|slices?|mice|"
                      r"mouse|rats?|lines?|KO|knock-?outs?|animals)\b)")
_QUALIFIED = re.compile(r"-(?:based|style|like|type|driven|derived)$", re.IGNORECASE)
"""A suffix that qualifies a name without changing it: "LoG-based" names LoG, "suite2p-style" suite2p."""
_FUNCTION_WORDS = frozenset("and the for per with from each any all are its into over than then when".split())

# Method families users write in lower case (machine learning, statistics, image processing);
# none is something the library does, so each is checked against the library's words like a name.
_FAMILIES = re.compile(
    r"\b(?:(?:neural|convolutional|deep|recurrent|graph) (?:\w+ )?(?:net\w*|learning)|machine learning|"
    r"(?:matrix|tensor) factori[sz]ation|component analysis|optical flow|active contours?|random forests?|"
    r"mixture models?|least[- ]squares|wavelets?|non-?local means|low[- ]rank|bootstrap\w*|spectral|spectrum|"
    r"bayesian|monte carlo|autoencoders?|classifiers?|embedd\w*|deformable|dimensionality reduction|"
    # named methods often written in lower case
    r"kalman|mahalanobis|random[- ]walk\w*|feret|hough|fourier|canny|sobel|gabor|hilbert|granger|level[- ]sets?|"
    r"region[- ]growing|graph[- ]cuts?|mean[- ]shift|dynamic time warping|isolation forests?|hierarchical clustering|"
    r"dbscan|umap|t-?sne|demons|cnmf|stardist|cascade|wiener|"
    r"connected[- ]components?(?: label\w*)?|li threshold\w*|triangle threshold\w*|yen threshold\w*|sauvola|niblack|"
    r"isodata)\b",
    re.IGNORECASE)


_PERSON = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_PEOPLE = re.compile(
    # who an e-mail greets or who signs it ("Hi Aya,", "ta, Bex", "... Cheers, Ivo")
    r"(?:\b(?i:dear|hi|hello|hey|hiya)\s+|(?i:\b(?:best(?: wishes| regards)?|many thanks|thanks|thank you|thx|ta|cheers|"
    r"regards|sincerely|yours)),\s*)(" + _PERSON + r")\b|"
    # someone who does, did or will do something ("Before Kira segments it", "Milo will plot it", "Theo is doing ...")
    r"\b(" + _PERSON + r")(?=\s+(?:(?:already|also|still|just|first|then|now|later|originally|previously|usually|"
    r"himself|herself)\s+)?(?:will|['’]ll|would|did|does|has|had|wants|thinks|says|said|doubts|suspects|insists|"
    r"asked|made|ran|used|prefers|reckons|believes|agreed|found|wrote|sent|shared|"
    # a verb that is also a noun or an adjective ("Kinetics plots are ...", "the Wiener filtered movie") only before
    # its object or a pause
    r"(?:runs|uses|needs|writes|segments|plots|handles|takes|covers|reports|checks|looks|computes|detects|measures|"
    r"counts|[a-z]{3,}ed)(?=\s*[,;.]|\s+(?:it|them|the|a|an|each|every|all|our|this|that|these|those|his|her|their|"
    r"on|last|yesterday|earlier)\b)|(?:is|was)\s+"
    r"(?:still\s+|also\s+)?(?:[a-z]+ing|busy|going|on it|in charge|responsible|away|off)\b))|"
    # work someone did ("done by Rob", "computed by Ty this morning", "from Bex's run", "the report is Mia's")
    r"\b(?:done|made|run|cleaned|loaded|prepared|collected|recorded|handled|taken|finished|sent|shared|uploaded|exported|"
    r"checked|reviewed|written|drawn)\s+(?:\w+\s+){0,3}?by\s+(" + _PERSON + r")\b|"
    r"\b[a-z]{3,}ed\s+(?:\w+\s+){0,3}?by\s+(" + _PERSON + r")(?=\s+(?:on|this|last|yesterday|today|earlier)\b)|"
    r"\b(" + _PERSON + r")['’]s\s+(?:\w+\s+)?(?:run|runs|job|list|notebook|data|team|lab|group|side|turn|plan|idea|"
    r"suggestion|output|results?|table|files?|movie|recordings?|mice|project|thesis|e-?mail|message|question|request|"
    r"figure|plots?|report|desk|slides|draft|review|notes?|experiment|sessions?|rig|responsibility|department)\b|"
    r"\b(?:is|are|was|were)\s+(" + _PERSON + r")['’]s(?=\s*(?:[.,;:!?)]|$|\s+(?:job|now|today|tomorrow|to do)\b))|"
    r"\b(?:from|by)\s+(" + _PERSON + r")['’]s\b|"
    r"\b(" + _PERSON + r")['’]s\s+(?:[\w-]+\s+){0,2}?(?:gave|produced|found|made|was|were|had)\b|"
    r"\b(" + _PERSON + r")\s+(?:already|previously|just|also|originally)\s+[a-z]{3,}ed\b")


def people(text: str) -> frozenset[str]:
    """Names of people in `text`, read from what only people do: greet, sign, do work ("Ty computed the statistics"),
    own a run ("Bex's run") or a job ("the report is Mia's"). They name no method anywhere in the text."""
    return frozenset(g for m in _PEOPLE.finditer(text) for g in m.groups() if g and not _FAMILIES.fullmatch(g))


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", normalise_notation(text)) if w]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


@dataclass(frozen=True)
class Vocabulary:
    """The library's phrasings as word sequences: a name is known if they say it, or spell out its initials."""

    phrases: tuple[tuple[str, ...], ...]
    initials: tuple[tuple[str, ...], ...] | None = None
    """The phrases whose initials may spell a name (default: all); thousands of users' requests spell nearly any
    three letters ("BM4D" as b-m-d), so the library's own texts do."""

    @classmethod
    def of(cls, texts: Iterable[str], initials: Iterable[str] | None = None) -> Vocabulary:
        def read(ts: Iterable[str]) -> tuple[tuple[str, ...], ...]:
            return tuple(tuple(_singular(w) for w in _words(t)) for t in ts)

        return cls(read(texts), None if initials is None else read(initials))

    def knows(self, name: str) -> bool:
        said = tuple(_singular(w) for w in _words(name))
        if not said:
            return True
        n = len(said)
        if any(p[i:i + n] == said for p in self.phrases for i in range(len(p) - n + 1)):
            return True
        letters = re.sub(r"[^A-Za-z]", "", name)
        spelled = self.phrases if self.initials is None else self.initials
        return 2 <= len(letters) <= 5 and any(_spells(letters, p) for p in spelled)


def _spells(acronym: str, phrase: tuple[str, ...]) -> bool:
    """Whether consecutive words of `phrase` begin with the acronym's letters: a capital stands for a word
    of three letters or more, a small letter may stand for a short one (LoG: Laplacian of Gaussian)."""
    n = len(acronym)
    for i in range(len(phrase) - n + 1):
        if all(w[0] == c.lower() and (c.islower() or (len(w) >= 3 and w not in _FUNCTION_WORDS))
               for c, w in zip(acronym, phrase[i:i + n], strict=True)):
            return True
    return False


def method_names(clause: str, context: str = "") -> list[str]:
    """Words and phrases of `clause` that read as the name of a method (by their form or family); the names of people
    in it or in its `context` (the whole request) are none."""
    text = _QUOTED.sub(lambda m: " " * len(m.group(0)), clause)  # a quoted title names nothing
    for name in people(f"{context}\n{clause}"):
        text = re.sub(rf"\b{re.escape(name)}(?:['’]s)?\b", lambda m: " " * len(m.group(0)), text)
    for blank in (_ACQUISITION, _SOURCE, _ANATOMY, _AUTHORS):
        text = blank.sub(lambda m: " " * len(m.group(0)), text)
    text = _NOTATION.sub(" ", _SIGN_OFF.sub(lambda m: m.group(0)[:m.start(1) - m.start(0)] + " " * len(m.group(1)), text))
    text = _PLACE.sub(lambda m: m.group(0)[:m.start(1) - m.start(0)] + " " * len(m.group(1)), text)
    spaced = re.sub(r"(?<=[A-Za-z])[-_](?=[A-Za-z])", " ", text)  # "optical-flow", "random_walker": same length
    spans = [m.span() for m in _FAMILIES.finditer(spaced)]
    # "200 Monte Carlo runs" counts the data's members: a family after a number names how they were made
    found = [(a, text[a:b]) for a, b in spans if not re.search(r"\d\s*$", text[:a])]
    blanked = text
    for a, b in spans:
        blanked = blanked[:a] + " " * (b - a) + blanked[b:]
    tokens = list(_TOKEN.finditer(blanked))
    for i, match in enumerate(tokens):
        tok = _QUALIFIED.sub("", re.sub(r"['’]s$", "", match.group(0)))
        if (len(tok) < 2 or _UNIT.match(tok) or _QUANTITY.match(tok) or _LABEL.match(tok) or tok.lower() in _COMMON or tok.lower() in _PLAIN
                or any(_PREPARATION.match(part) for part in tok.split("-"))):
            continue
        letters = re.sub(r"[^A-Za-z]", "", tok)
        upper = sum(c.isupper() for c in letters)
        named = (upper >= 2 or (upper == 1 and not tok[0].isupper())  # PCA, MLspike, t-SNE
                 or (i > 0 and tok[0].isupper()                         # "... with a Kalman filter"
                     and not re.search(r"[.?!:;]\s*$", text[:match.start()]))  # not a sentence's first word
                 or (bool(letters) and any(c.isdigit() for c in tok)))  # BM3D, cyto2, 3D
        if named:
            found.append((match.start(), tok))
    return [name for _, name in sorted(found)]


def unknown_methods(clause: str, vocabulary: Vocabulary, context: str = "") -> list[str]:
    """The method names of `clause` that no word of the library says (`context`: the whole request, for its people)."""
    return [n for n in method_names(clause, context) if not vocabulary.knows(n)]


__all__ = ["Vocabulary", "method_names", "people", "unknown_methods"]
