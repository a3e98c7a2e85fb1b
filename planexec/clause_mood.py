"""Which sentences of a request ask, and which only tell its story (what was done, or will be done elsewhere).

A long e-mail names many analyses besides its ask: "Sam did the cell detection last month", "Marta will do the
kinetics next week", "Rise times can wait". Those sentences are narrative: their analyses are not asked, so the
ask is judged without them (`planexec.clause_kinds.asking_part`) and, beside a served ask, they ask nothing
(`planexec.coverage_story.story`). A sentence is a request when it has a request's form (a question, "please",
"could you", "I need", a third party's "asked us to", an imperative verb first); a narrative is a sentence that is
no request and tells of the past, of others' plans or of the writer's own later work. A narrative that a later
sentence points back to ("Could you segment it that way?") is part of the ask.
"""

from __future__ import annotations

import re

_REQUEST = re.compile(
    r"\?|\b(?:please|pls|plz|kindly)\b|"
    r"\b(?:could|can|would|will|may)\s+(?:you|u|someone|somebody)\b|\b(?:you|u)\s+(?:could|can|should|might)\b|"
    r"\b(?:i|we)(?:['’]d|['’]ll)?\s+(?:(?:would|also|still|really|only|just|then|now|mainly|mostly|rather)\s+){0,2}"
    r"(?:need|want|like|love|require|prefer|wish|hope|ask)\w*\b|\band (?:would like|want|need)\b|"
    r"\b(?:i|we)(?:['’]d| would) (?:rather(?! not\b)|be (?:grateful|glad|happy|thankful))\b|"
    r"\b(?:i|we)(?:['’]m| am|['’]re| are)\s+(?:\w+\s+)?(?:after|looking for|hoping|asking|interested in|keen|curious)\b|"
    r"\bit would be (?:great|good|nice|helpful|useful|ideal)\b|\b(?:is it possible|is there a way)\b|"
    r"\blet(?:['’]s| me| us)\b|\bhelp (?:me|us)\b|\b(?:i|we) wonder\w*\b|"
    r"\basked (?:me|us|for)\b|\b(?:wants?|needs?|would like|expects?) (?:me|us|you) to\b|"
    r"\b(?:the|my|our) (?:ask|request|question|goal|aim|task|deliverable)s? (?:is|are|here is)\b|"
    r"\bwhat['’]?s missing\b|\bwhat (?:i|we) (?:\w+ )?(?:need|want|would like|am after|['’]m after)\b",
    re.IGNORECASE)
_OPENERS = re.compile(r"^\s*(?:(?:and|so|then|also|now|for now|for the moment|this time|first|next|finally|lastly|"
                      r"afterwards|just|simply|ideally|"
                      r"additionally|separately|but|or|again|quickly|briefly),?\s+)*", re.IGNORECASE)
_IMPERATIVE = re.compile(
    r"(?:compute|calculate|count|find|detect|plot|draw|make|get|estimate|measure|list|report|summari[sz]e|run|do|apply|"
    r"use|fit|compare|extract|segment|subtract|correct|register|classify|remove|normali[sz]e|convert|export|save|load|"
    r"read|generate|simulate|search|pull|return|send|provide|flag|mark|rank|sort|include|add|put|set|keep|leave|exclude|"
    r"skip|drop|ignore|overlay|label|align|take|split|restrict|limit|pick|identify|quantify|score|give|show|tell|write|"
    r"produce|create|build|check|verify|look|deconvolve|denoise|smooth|filter|average|project|collapse|outline|threshold|"
    r"watershed|crop|bin|infer|derive|determine|assess|evaluate|test|rerun|redo|repeat|try|don['’]?t|do not|never|avoid|"
    r"hold off|treat|assume|map|trace|stack|annotate|tabulate|correlate|inspect|display|visuali[sz]e|e-?mail|attach|"
    r"share|output|print|store|fetch|retrieve|locate|name|z-?score|downsample|upsample|sum|total|mask|combine|merge|"
    r"separate|isolate|characteri[sz]e|describe|explain|grab|turn|transform|express|bring|prepare)\b", re.IGNORECASE)
_DETERMINER = r"(?!(?:The|A|An|This|That|These|Those|Our|My|Its|Their|His|Her|Each|Every|All|Some|No)\b)"
_WHO = (r"(?:(?i:\b(?:i|we|she|he|they|someone|somebody|nobody|everyone))"
        r"|(?<![.!?]\s)(?<!^)\b[A-Z][a-z][\w'’-]*"  # a name inside a sentence ("as Lena did")
        r"|^" + _DETERMINER + r"[A-Z][a-z][\w'’-]*(?=\s+(?:already|previously|also|just|once|did|ran|made|has|have|had|\w+ed)\b)"
        r"|(?i:\b(?:my|our|the|a|an|his|her|their) (?:[\w'’-]+ ){0,2}?(?:student|technician|tech|colleague|collaborator|"
        r"postdoc|supervisor|pi|lab|group|team|reviewer|referee|partner|analyst|manager|finance|hydrologist|"
        r"pharmacologist|core|facility|people|predecessor|labmate|co-teacher|company|department|clinician|engineer|"
        r"pipeline|software|script|code|rig|microscope|model|tool)s?(?: of (?:mine|ours|his|hers|theirs))?))")
_PAST = re.compile(
    _WHO + r"(?i:(?:['’](?:ve|d))?\s+(?:(?:had|has|have|already|previously|also|just|once|originally|first|then|recently|"
    r"actually|apparently|initially|only|both|all|never|last \w+)\s+){0,3}(?:\w{2,}(?<!e)ed|did|ran|made|saw|took|found|got|"
    r"wrote|drew|built|began|chose|gave|threw|kept|left|sent|put|thought|brought|told|went|came|shot|spent|lost|said|"
    r"split|cut|set|read|fit|spread|broke|redid|reran|rewrote|sold|bought|paid|held|led|met|knew|taught|understood|"
    r"says|insists?|thinks?|suspects?|believes?|reckons?|claims?|doubts?|worries|fears?|wonders?)\b)")
_OTHERS_LATER = re.compile(
    r"\b(?:[A-Z][a-z][\w'’-]*|(?i:she|he|they|someone|(?:my|our|the|a|his|her|their) (?:[\w'’-]+ ){0,3}?(?:student|"
    r"technician|colleague|collaborator|postdoc|supervisor|pi|lab|group|team|reviewer|partner|tech|people|analyst)s?))"
    r"(?i:['’]ll|\s+(?:will|is going to|are going to|plans? to|intends? to|is planning to|are planning to))\b|"
    r"\b(?:[A-Z][a-z][\w'’-]*|(?i:she|he|they|someone))(?i:\s+(?:wants?|needs?|would like|prefers?) to\b[^.?!]*"
    r"\b(?:separately|later|afterwards|next (?:week|month|time)|another time|elsewhere|herself|himself|themselves)\b)")
_OTHERS_NOW = re.compile(
    r"(?:^\s*|[;,]\s+)(?:(?-i:[A-Z][a-z][\w'’-]*) (?:in|from|of) (?:our|my|the|another|her|his) (?:[\w-]+ )?(?:group|lab|team)|"
    r"(?:my|our) (?:[\w-]+ )?(?:colleague|student|postdoc|collaborator|supervisor|pi|co-?author|labmate)s?(?: (?-i:[A-Z][a-z]+))?)"
    r" (?:is|are) (?:already |currently |also |now )?\w+ing\b", re.IGNORECASE)
"""Another person's work in progress ("Priya in our group is comparing the batch against jGCaMP8")."""
_WRITER_LATER = re.compile(
    r"\b(?:i|we)(?:['’]ll| will| shall| plan to| intend to| are going to| am going to| might| may)\b[^.?!]*"
    r"\b(?:later|next|ourselves|myself|afterwards|tomorrow|eventually|another time|separately|elsewhere|by hand|once|"
    r"in (?:the )?(?:future|spring|summer|autumn|fall|winter))\b|"
    r"\b(?:eventually|later|next (?:week|month|year)|afterwards)\b[^.?!]*\b(?:i|we)(?:['’]ll| will| shall| plan to| are going to)\b",
    re.IGNORECASE)
_DESCRIBES = re.compile(
    r"^\s*(?:[\w./-]+\.(?:npy|npz|csv|tsv|tiff?|h5|hdf5|nwb|json|txt|xlsx?|mat)\s+(?:holds?|contains?|has|is|are|"
    r"stores?)\b|(?:the|this|these|our|my|attached|that|its)\s+(?:[\w'’/.-]+\s+){0,3}?(?:folder|recording|movie|stack|file|"
    r"array|table|dataset|data|session|video|crop|field of view|fov|export|log|sheet|csv|npy|sample|ensemble|curves?|"
    r"frames|images?|experiment|preparation|prep|animal|mouse|slice|culture|cells|neurons|[\w-]*\.(?:npy|npz|csv|tsv|tiff?|h5|"
    r"nwb|json|txt|xlsx?|mat))(?:\s+[\w.-]*/[\w./-]*)?"
    r"(?:\s+(?:in|from|of|on|at)\s[^,.;!?]{0,40}?)?\s+(?:is|are|was|were|holds?|"
    r"contains?|has|have|comes?|came|shows?|covers?|includes?|consists?|spans?|lasts?)\b|this is (?:a|an|the|our|my)\b|"
    r"(?:it|this)['’]s (?:a|an|the|our|my)\b|(?:(?:my|our|the) )?first time (?:\w+ing|with|using|doing)\b|"
    r"(?:i['’]m|i am|we['’]re|we are) (?:\w+ )?new (?:to|in|at)\b|sorry (?:if|for)\b|(?:attached|enclosed) (?:is|are)\b|(?:i|we) (?:run|lead|manage|head|work|teach|study|coordinate|supervise|"
    r"handle|am|are|image|record)\b|(?:our|my) (?:group|lab|team) (?:studies|works on|is interested in|looks at|investigates|"
    r"records|images)\b)", re.IGNORECASE)
_GREETING = re.compile(r"^\s*(?:(?:hello|hi|hey|hiya)(?: all| everyone| team| (?-i:[A-Z][\w'’-]*)){0,2}|dear [^,!]*?|"
                       r"good (?:morning|afternoon|evening))(?:\s*[,!]|\s+and\b)\s*",
                       re.IGNORECASE)
_POSTPONED = re.compile(r"\bcan wait\b|\bfor (?:a )?later\b|\b(?:is|are) for (?:later|another|next)\b|\b(?:is|are) planned\b|"
                        r"\b(?:is|are|was|were|gets?|got|been) (?:postponed|deferred|on hold|parked|shelved|"
                        r"a separate (?:discussion|question|issue|topic|step|project))\b|\b(?:comes?|will come) (?:later|after|once|when)\b|"
                        r"\b(?:stays?|remains?) with\b|\b(?:will )?come from (?:a |another |a different |their |her |his )"
                        r"(?:[\w-]+ )?(?:pipeline|lab|group|analysis|team|person|source)\b",
                        re.IGNORECASE)
_IF_WE = re.compile(r"^\s*(?:and\s+)?if\b[^.?!]*?\b(?:i|we)(?:['’]ll| will| can| would| could| stop| go| know| move| rerun|"
                   r" redo| keep| drop| switch| look| need| have| come back| get back| ask| write| check| be)\b|"
                   r"^\s*(?:and\s+)?if\b[^.?!]*?\b(?:that|this|it) (?:settles|answers|closes|ends|would settle|is enough)\b",
                   re.IGNORECASE)
"""What the writer will do depending on the answer ("If it comes out near zero we stop worrying")."""
_DONE = re.compile(r"^\s*(?:the|our|my|all|both|these|those)\s+"
                   r"(?:(?!(?:would|could|can|like|want|need|how|what|which|whether|if|please|and|but)\b)[\w'’/-]+\s+){0,9}?(?:(?:is|are|was|were|has been|"
                   r"have been|got|gets)\s+(?:all\s+|already\s+|now\s+|fully\s+)?(?:\w{3,}ed|done|run|made|found|drawn|finished|complete|"
                   r"ready)|(?:ran|worked|went|came out) (?:fine|well|ok|okay))\b", re.IGNORECASE)
"""Work already done, told in the passive ("the transients are all detected, thanks"; "the registration ran fine")."""
_AGENT = (r"(?:(?-i:[A-Z][a-z][\w'’-]*)|(?:the|our|my|his|her|their|another|a|some)\s+(?:[\w'’-]+\s+){0,2}?(?:group|lab|team|student|"
          r"colleague|collaborator|postdoc|tech|technician|core|facility|partner|people|co-?author|reviewer|supervisor|"
          r"analyst)s?)\b")
_BY_SOMEONE = re.compile(
    r"\b(?:(?:(?:will|shall|would|can|could|is going to|are going to)\s+be|is|are|was|were|has been|have been|had been|"
    r"gets?|got)\s+)?(?:(?:already|all|now|then|separately|later|soon|probably|just|also|being)\s+){0,2}"
    r"(?:\w{3,}ed|done|run|made|drawn|tried|written|taken|shown|built|redone|handled|fit|set up)\s+"
    r"(?:(?:already|separately|later|afterwards|tomorrow|next week|independently|elsewhere)\s+)?by\s+" + _AGENT, re.IGNORECASE)
"""A step someone else does or did, in the passive ("The traces will be plotted by Benno afterwards", "events detected
by Yuri already", "Spike inference will be run by the Bonn group later")."""
_BY_SOMEONE_LATER = re.compile(
    r"\b(?:will|shall|is going to|are going to)\s+be\s+(?:(?:\w+ly|later|then)\s+)?(?:\w{3,}ed|done|run|made|drawn|tried|"
    r"written|taken|shown|built|handled)\s+(?:(?:later|afterwards|separately)\s+)?by\s+" + _AGENT, re.IGNORECASE)
_ONLY_STATUS = re.compile(r"^\s*(?:[\w'’/-]+(?:\s*(?:\+|&|,|\band\b)\s*|\s+)){0,5}?(?:done|finished|complete|ready|later|pending|"
                          r"in progress|ongoing|next week|tomorrow)\s*(?:\((?-i:[A-Z])[^()]{0,30}\))?\s*[.!]?\s*$", re.IGNORECASE)
"""A verbless note of a step's state ("registration + segmentation done (Ayşe).", "segmentation later (Pau).")."""
_NOT_YET = re.compile(r"^\s*(?:notes?(?: [\w/.-]+)?:\s*)?no [^.?!;,]{1,40}? (?:yet|for now|this time|today)\b", re.IGNORECASE)
"""A step declined for now ("Notes: no PCA denoising yet, ..."): what comes later, not the ask."""
_POINTS_BACK = re.compile(
    r"\b(?:that|this|those|these|such|her|his|their)\s+(?:[\w-]+\s+){0,2}?(?:factor|value|threshold|settings?|parameters?|"
    r"spacing|distance|method|approach|way|analysis|measure|baseline|f0|correction|model|number|definition|convention|"
    r"cut-?off|percentile|band|width|window|choice|rule|criterion|version|script|procedure|pipeline|recipe|protocol|one)s?\b|"
    r"\bexactly (?:that|this|as)\b|\bas (?:above|described|stated|before|she did|he did|they did)\b|\bthe same\b|"
    r"\bagain\b|\blikewise\b", re.IGNORECASE)


_THEN_DO = re.compile(r"(?:[,;:]\s*|\bso\s+|\band\s+)(?:so\s+|and\s+|then\s+|but\s+)?(?=\S)", re.IGNORECASE)
"""Where an imperative may follow a statement in the same sentence ("Our cells are large, so put the seeds 10 px apart")."""
_SPECIFIES = re.compile(r"\b(?:must|should|has to|have to|needs? to|required?|requirement|exactly|instead|rather than|"
                        r"no more than|at least|at most)\b", re.IGNORECASE)
"""What a statement requires of the analysis ("the reference must be frame 0, since we matched that one"): asked."""


_HEADER = re.compile(
    r"^\s*(?:(?:(?:lab|meeting|group|project|my|our|quick)\s+)?(?:e-?mail|memo|message|notes?|minutes|notebook|note to self)"
    r"(?:(?:\s+(?:to|for|from|of)\s+|[\s,]+)[^:\n]{1,30}?)?|from (?:today['’]s|yesterday['’]s|the|our|this week['’]s|last week['’]s|"
    r"my) [^:\n]{0,30}?(?:notes|meeting|minutes|call|discussion|standup|stand-up)|"
    # a tracker's or a forum's label, a review's numbering ("Ticket #412:", "ISSUE-88:", "Reviewer 2, comment 3:")
    r"(?:ticket|issue|bug|task|to-?do|item|request|jira|subject|re|background|context)(?:[\s#-]*[\w.-]*\d[\w.-]*)?|"
    r"reviewer\s*#?\s*\d+(?:\s*[,-]?\s*(?:comment|point|remark|minor|major)\s*#?\s*\d+)?)\s*:\s*|"
    r"^\s*\[[^\]\n]{1,20}\]\s*|^\s*(?:ticket|issue|bug|jira)[\s#-]*[a-z]*-?\d+\s*(?:,|\band\b)\s*", re.IGNORECASE)
"""A heading before the text ("Email to Ivo:", "Notes 3 Mar:", "From the planning meeting:"): it names no task."""


def without_header(text: str) -> str:
    """`text` without a heading that names its kind and date ("Notes, 2 June: ..." -> "...")."""
    return _HEADER.sub("", text, count=1)


_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z\"'(])|(?<=[?!])\s+(?=[a-z])")
_CHAT_STOP = re.compile(r"(?:(?<=[^\W\d_]{3})|(?<=[^\W\d_]\)))\.\s+(?=[a-z])")
"""Chat style: a full stop after a word or a bracket, then lower case ("done (Ayşe). extract traces")."""
_ABBREVIATION = re.compile(r"\b(?:approx|etc|resp|incl|excl|fig|figs|eqs|min|max|sec|avg|vol|nos|ref|refs|al|vs|ca)$", re.IGNORECASE)


def sentences_of(text: str) -> list[str]:
    """The sentences of a text (after a question or an exclamation, lower case starts one too: chat style)."""
    out: list[str] = []
    for piece in _SENTENCE.split(text.strip()):
        start = 0
        for m in _CHAT_STOP.finditer(piece):
            if not _ABBREVIATION.search(piece, 0, m.start()):
                out.append(piece[start:m.start() + 1])
                start = m.end()
        out.append(piece[start:])
    return [s for s in out if s]


def requests(sentence: str) -> bool:
    """Whether a sentence has a request's form: a question, a polite or modal request, a wish, an imperative (first,
    or after "so", "and" or a comma)."""
    return bool(_REQUEST.search(sentence) or _IMPERATIVE.match(_OPENERS.sub("", sentence, count=1))
                or any(_IMPERATIVE.match(sentence, m.end()) for m in _THEN_DO.finditer(sentence)))


def narrative(sentence: str, data: bool = True) -> bool:
    """Whether a sentence only tells what was done, or what others or the writer will do elsewhere or later (with
    `data`, also what the data or the writer is: "The folder holds 100 frames", "I run the sales desk")."""
    bare = _GREETING.sub("", sentence, count=1)
    return not requests(bare) and not _SPECIFIES.search(bare) and bool(
        _PAST.search(bare) or _OTHERS_LATER.search(bare) or _OTHERS_NOW.search(bare) or _WRITER_LATER.search(bare) or _POSTPONED.search(bare)
        or (_DONE.match(bare) and not re.search(r"(?<![A-Za-z])\d", bare)) or _IF_WE.match(bare) or _BY_SOMEONE.search(bare)
        or _ONLY_STATUS.match(bare)
        or (data and _DESCRIBES.match(bare)))


def postponed(sentence: str) -> bool:
    """Whether a sentence only puts a step off or leaves it to others ("The trace plot is postponed", "no PCA denoising
    yet, Jun wants to benchmark that separately")."""
    bare = _GREETING.sub("", sentence, count=1)
    return not requests(bare) and not _SPECIFIES.search(bare) and bool(
        _POSTPONED.search(bare) or _OTHERS_LATER.search(bare) or _NOT_YET.match(bare) or _BY_SOMEONE_LATER.search(bare))


def points_back(sentence: str) -> bool:
    """Whether a sentence refers to something an earlier one described ("with that factor", "the same way")."""
    return bool(_POINTS_BACK.search(sentence))


def story_sentences(sentences: list[str], data: bool = True) -> set[int]:
    """The indices of narrative sentences that the next sentence does not point back to (unless it too is narrative),
    when another sentence requests
    (`data`: a description of the data counts as narrative)."""
    if not any(requests(s) for s in sentences):  # notes ("Notes: ROI contours over the mean image. The trace plot is
        put_off = {i for i, s in enumerate(sentences) if postponed(s)}  # postponed."): only what waits is no ask
        rest = [s for i, s in enumerate(sentences) if i not in put_off]
        return put_off if rest and not any(narrative(s, data) for s in rest) else set()
    return {i for i, s in enumerate(sentences)
            if narrative(s, data) and not (i + 1 < len(sentences) and points_back(sentences[i + 1])
                                           and not narrative(sentences[i + 1], data))}


def without_story(text: str) -> str:
    """`text` without the sentences that tell what was done or will be done elsewhere ("We ran the event detection
    last week. Could you measure the kinetics?" -> the second sentence): where a table's asked columns are looked for."""
    sentences = sentences_of(text)
    told = story_sentences(sentences, data=False)
    return " ".join(s for i, s in enumerate(sentences) if i not in told) if told else text


__all__ = ["without_header", "narrative", "points_back", "postponed", "requests", "sentences_of", "story_sentences", "without_story"]
