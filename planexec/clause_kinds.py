"""What kind of thing a clause of a request is, apart from which action serves it: a statement that only tells,
a word on the answer's form, a frame rate given alone, a question about a search's sources, a request for the
ΔF/F itself, a wish to see a picture. Long e-mail requests carry many such clauses around their ask (issue 12)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from planexec.clause_mood import narrative, requests, sentences_of, story_sentences, without_header
from planexec.coverage_wording import without_asides
from planexec.knowledge.reuse import extract_terms

if TYPE_CHECKING:
    from planexec.coverage_terms import Named

_ASKS_DFF = re.compile(r"^\s*(?:the\s+|a\s+|my\s+)?dff\b|"
                       r"\bwhat(?:['’]s| is| are| was)\s+(?:the\s+|their\s+|its\s+|(?:each|every|the)\s+(?:cell|neuron|roi)['’]s\s+)?dff\b|"
                       r"(?<!\bwe )(?<!\bi )(?<!\bthey )(?<!\bbefore )(?<!\bafter )"  # "before we compute dF/F": a later step
                       r"\b(?:comput\w*|calculat\w*|get|give|make|produce|derive|normali[sz]\w*(?: \w+){0,3} (?:to|into|as)|"
                       r"convert\w*(?: \w+){0,3} (?:to|into)|express\w*(?: \w+){0,3} as)\s+(?:the\s+|a\s+|my\s+)?dff\b",
                       re.IGNORECASE)
"""A clause that asks the dF/F itself ("compute dF/F with a 10th percentile baseline", "normalise to dF/F"), after
`normalise_notation`; "a single F0 overestimates dF/F" only talks about it."""


def asks_the_dff(said: str) -> bool:
    """Whether a clause (after `normalise_notation`) asks the dF/F itself, not a step towards it."""
    return bool(_ASKS_DFF.search(said))


_ANSWER_FORM = re.compile(r"^\s*(?:(?:for now|for today|today|this time|right now),?\s+)?(?:(?:i|we)\s+(?:only\s+|just\s+)?"
                          r"(?:need|want|would like|['’]d like)\s+)?(?:(?:only|just)\s+)?"
                          r"(?:the\s+|this\s+|that\s+)?(?:one\s+|single\s+)?(?:number|count|value|result|answer)s?\b(?:(?:,|\s+and)?\s*(?:please|pls|thanks?|for (?:my|our) "
                          r"[\w ]+))*\s*[.!]?\s*$", re.IGNORECASE)
"""A clause that only says how to answer ("I need only the number for my table", "just the count, please")."""
_BARE_RATE = re.compile(r"^\s*(?:(?:fs|frame ?rate|sampling (?:rate|frequency)|acquisition rate)\s*(?:=|:|is|of)?\s*)?(?:at\s+|@\s*)?\d+(?:\.\d+)?\s*(?:hz|fps|frames? per second|frames?/s)\s*[.!]?\s*$", re.IGNORECASE)
"""A frame rate given alone ("10 fps"): a statement of how the data was acquired."""


_UNIT_FINE = re.compile(r"^\s*(?:frames|seconds|pixels|px|ms|hz)(?: are| is)? (?:fine|ok|okay)(?: as (?:the|a) units?)?\s*[.!]?\s*$",
                        re.IGNORECASE)


def answer_form_only(clause: str) -> bool:
    """Whether a clause only says what form the answer takes ("just the count, please", "frames are fine as the unit")."""
    return bool(_ANSWER_FORM.match(clause) or _UNIT_FINE.match(clause))


_REFERS_BACK = re.compile(r"^\s*(?:(?:could|can|would|will) you\s+|please\s+)*(?:(?:work|figure|sort) (?:it|that|this|them) out|"
                          # the step before chooses a setting itself ("Please let it estimate the constant itself")
                          r"let (?:it|the (?:fit|method|algorithm|code|step|tool)) (?:estimate|fit|choose|pick|find|decide|work out|learn)"
                          r"(?: (?:the|its|that|this) [\w -]{1,30}?)?(?: itself| on its own| from the data| automatically)?|"
                          r"(?:do|handle|calculate|compute|manage) (?:it|that|this|them)|"
                          r"(?:which|what) (?:indices|indexes|ones|ids|numbers)(?: (?:are|were) (?:they|those|these|flagged))?)"
                          r"(?: for (?:me|us))?(?:,? please)?\s*[?.!]*\s*$",
                          re.IGNORECASE)
_WHAT_FOR = re.compile(r"^\s*(?:i|we|(?:the |my |our )?[\w-]+)(?:['’]d| would)? (?:needs?|wants?|likes?) "
                       r"(?:it|that|this|them|the (?:number|result|value|answer|figure|total)s?) (?:for|by|before|in)\b|"
                       # "I want to paste the picture into my lab notebook"
                       r"^\s*(?:i|we)(?:['’]d| would|['’]ll| will)? (?:(?:want|like|need|plan|am going|['’]m going) to )?(?:paste|put|use|"
                       r"include|present|drop|insert|add|stick|share|print|show) (?:it|that|this|them|the (?:picture|figure|image|"
                       r"plot|number|result|value|table|answer)s?) (?:into|in|on|for|at|with)\b", re.IGNORECASE)


def refers_back_only(clause: str) -> bool:
    """Whether a clause only asks again for what the clause before it asked ("Could you work it out?"), or says why
    it was asked ("Our stage sometimes drifts, so I'd like to rule that out"), naming nothing of its own."""
    return bool(_REFERS_BACK.match(clause)) or bool(_RULE_OUT.search(clause) and not extract_terms(clause).groups)


_RULE_OUT = re.compile(r"\b(?:rule|check|sort) (?:that|this|it) out\b|^\s*(?:i|we)(?:['’]d| would)? (?:want|like|need|wish) to (?:know|see|judge|decide|tell) (?:if|whether) (?:it|they|this|that|these|the (?:value|result|number)s?) "
                       r"(?:is|are|was|were|looks?|comes?|fits?|matches|match)\b|\bto (?:be sure|make sure|double[- ]check)\s*[.!]?\s*$",
                       re.IGNORECASE)


def says_what_for(clause: str) -> bool:
    """Whether a clause says what the result is for or by when ("I need it for the quarterly slide deck by this
    afternoon"); it asks nothing when it names nothing of the domain."""
    m = _WHAT_FOR.match(clause)  # "the figure" it wants is the result, not a plot
    return bool(m) and not extract_terms(clause[m.end():]).groups


def only_a_rate(clause: str) -> bool:
    """Whether a clause is a frame rate and nothing else ("10 fps")."""
    return bool(_BARE_RATE.match(clause))


_ASK_FORM = re.compile(
    r"\?|\b(?:please|pls|could|can|would|will|need|needs|want|wants|like|should|must|has to|have to|let me|(?<!for )(?<!for your )(?<!for the )(?<!for any )help|"
    r"wonder\w*|give|show|tell|compute|calculate|count|find|detect|plot|draw|make|get|estimate|measure|list|report|"
    r"summari[sz]e|(?<!\ba )(?<!\bthe )(?<!\bthis )(?<!\bthat )(?<!\beach )(?<!\bshort )(?<!\blong )(?<!photon )run|do|apply|use|fit|test(?! (?:movie|recording|data|run|file|set|images?|stack|session|dataset|sample))|compare|extract|segment|subtract|correct|register|classify|remove|"
    r"normali[sz]e|convert|export|save|load|read|generate|simulate|look|search|pull|return|send|provide|flag|mark|"
    r"rank|sort|include|add|put|set|keep|leave|exclude|skip|drop|ignore|overlay|label|align|take|split|restrict|"
    r"limit|pick|identify|quantify|score|curate|what|which|how|where|when|why|whether|if)\b", re.IGNORECASE)
"""What makes a clause ask: a question mark, a request or modal word, a task verb."""
_TELLING = re.compile(r"\b(?:is|are|was|were|am|i['’]m|we['’]re|it['’]s|has|have|had|been|being|looks?|seems?)\b|"
                      r"^\s*(?:hello|hi|hey|dear|good (?:morning|afternoon|evening)|(?:many )?thanks|thank you|thx|thnx|tia|ty|cheers|best|"
                      r"much appreciated|acquired|recorded|imaged|sampled|filmed|captured|"
                      r"(?:kind |best |warm )?regards|sincerely|all the best|with (?:many )?thanks|best wishes|yours|ta)\b|"
                      # a bare name signing the e-mail ("Ana", "Dr. Tomasz Wilk")
                      r"^\s*(?:(?i:dr|prof)\.?\s+)?(?-i:[A-ZÀ-Þ][a-zà-ÿ]+(?:[- ][A-ZÀ-Þ][a-zà-ÿ]+){0,2})\s*[.!]?\s*$",
                      re.IGNORECASE)


def tells_only(clause: str) -> bool:
    """Whether a clause only tells something about the writer, the occasion or the data and asks nothing: a
    statement or greeting ("Hello, I am new in the lab", "I'm preparing the quarterly review") with no question,
    request, modal or task verb, naming no method, statistic or number (so "the baseline is the 20th percentile"
    still counts as asked)."""
    bare = _RATE.sub(" ", without_asides(clause))  # "(GCaMP6f, imaged at 10 Hz)" sets nothing
    return (bool(_TELLING.search(clause)) and not _ASK_FORM.search(clause) and not _SETTING.search(bare)
            and not extract_terms(clause).groups)


_DECLINE = re.compile(r"\b(?:don['’]?t|do not|never) (?:drop|exclude|remove|discard|delete|throw (?:out|away)|leave out) "
                      r"(?:anything|any(?: of (?:them|those|these|it))?|them|those|these)\b|"
                      r"\b(?:i|we) (?:don['’]?t|do not) want to (?:impose|fix|force|hard-?code|prescribe) (?:one|it|that|a value|"
                      r"anything)\b|\b(?:that|this|those|these|it)(?:['’]s| is| are) (?:a separate|another) (?:discussion|question|"
                      r"issue|topic|story|matter)\b|\b(?:i|we)(?:['’]d| would) rather not\b|"
                      r"\b(?:is|are|was|were)(?:n['’]t| not) (?:needed|necessary|required|wanted|part of (?:this|the|my|our) (?:ask|request))\b|"
                      r"\bnothing (?:i|we) (?:need|want|am asking|are asking) (?:from you|here)\b|\bneither of (?:those|them|these) is what\b|"
                      r"\b(?:that|this|those|these)(?:['’]s| is| are) (?:her|his|their|someone else['’]s|a separate|another) (?:project|job|"
                      r"task|part|question|request|thing)\b|"
                      r"\b(?:not|no longer) (?:needed|necessary|required)\b|"
                      r"\b(?:don['’]?t|do not|no need to|needn['’]t) (?:bother|redo|repeat|re-?run|worry about)\b|"
                      r"\b(?:i['’]m|i am|we['’]re|we are) (?:\w+ly )?not (?:\w+ly )?(?:asking (?:you )?(?:to|for)|after|interested in|"
                      r"looking for|presenting|showing|reporting)\b|"
                      r"\b(?:don['’]?t|do not) (?:run|apply|do|compute|perform|start|export|save|write|make|plot|draw|generate|"
                      r"send|produce|create|break|split|group|segment|extract|detect|deconvolve|register|classify|count|fit)\b"
                      r"[^.;:?!]*\b(?:yet|for now|this time)\b|\bhold off on\b|"
                      # "you don't need to do it", "no numbers are needed here", "there is no need to export anything else"
                      r"\b(?:don['’]?t|do not|won['’]t) (?:need|have) to (?:do|run|compute|make|repeat|redo|check) (?:it|that|this|them|"
                      r"those|these)\b|\bno (?:[\w-]+ ){0,2}(?:is|are) (?:needed|necessary|required|wanted)\b|"
                      r"\bthere(?:['’]s| is) no need (?:to|for)\b|\bskip (?:anything|everything) (?:fancier|else|more)\b|"
                      r"\b(?:i|we) (?:don['’]?t|do not) need (?:a|an|any|the) (?:[\w-]+ )?(?:plots?|figures?|pictures?|graphs?|charts?|"
                      r"tables?|reports?|files?|maps?)(?: (?:here|today|now|this time|from you|for this))?\s*[.!]?\s*$|"
                      r"^\s*(?:and\s+)?nothing (?:else|more)\b|^\s*(?:and\s+)?no (?:\w+ ){0,2}?(?:please|thanks|needed|yet|for now|"
                      r"this time|today)\b|"
                      # a clause of declines only ("Please don't generate synthetic curves and real data only and skip the report")
                      r"^\s*(?:please\s+)?(?:(?:don['’]?t|do not|no need to) (?:generate|simulate|plot|draw|make|export|save|write|"
                      r"send|produce|create|redo|repeat|re-?run|segment|extract|detect|deconvolve|register|classify|count|fit)|skip)\b(?:(?!\b(?:but|instead|then|just|only (?:want|need)|"
                      r"rather)\b|,\s*(?:and\s+)?(?:please\s+)?(?:use|compute|calculate|take|set|make|give|apply|run|do|plot|draw|"
                      r"count|detect|segment|report|tell|show|list|estimate|measure|fit|rank)\b)[^.;:?!])*$|"
                      r"\b(?:leave|set|put) (?:\w+ ){0,3}aside\b|\bleave (?:both of )?(?:those|them|that|these|it) (?:out|alone)\b|"
                      r"\b(?:analy[sz]ed|done|handled|covered|computed|made|did|ran|checked) (?:separately|elsewhere)\b|"
                      r"\b(?:we|i|someone|they) (?:already )?(?:did|ran|made|looked at|computed|checked|analy[sz]ed) (?:those|that|these|this|it|them)\b"
                      r"[^.;:?!]*\balready\b", re.IGNORECASE)


_COURTESY_OR_DENIAL = re.compile(r"\b(?:please|pls|plz|kindly)\b|\b(?:don['’]?t|do not|never|no need to)\s+\w+", re.I)


def declines_only(clause: str) -> bool:
    """Whether a clause only declines work, done elsewhere or not wanted ("please don't redo those", "so that one isn't
    needed", "we did those in the spreadsheet already"): beside a served ask it asks nothing, unless what it declines is a
    step the served asks need (`planexec.coverage_story.story` checks that)."""
    m = _DECLINE.search(clause)  # "Compute the skewness, but don't plot it yet" asks the skewness first
    return m is not None and not requests(_COURTESY_OR_DENIAL.sub(" ", clause[:m.start()]))


_ONLY_OPENS = re.compile(r"^\s*(?:(?:please|first|just)\s+)*(?:open|load|read(?: in)?|take|grab)\s+(?:the|these|this|those|my|our|"
                         r"attached)\s+(?:[\w-]+\s+){0,2}?(?:frames|images|movie|stack|folder|recording|tiffs?|pngs)"
                         r"(?:\s+(?:in|from)\s+(?:this|the|that|my|our)\s+(?:folder|directory|dir|file))?\s*[.!]?\s*$|"
                         # when, beside the ask ("Before anyone segments this session, please ..."): a clause without a main verb
                         r"^\s*(?:before|after|once|until|while)\s+(?:anyone|someone|somebody|we|i|you|they|he|she|"
                         r"(?-i:[A-Z][a-z]+))\s+\w+(?:\s+[\w'’-]+){0,4}\s*[.!]?\s*$", re.IGNORECASE)


def opens_or_times_only(clause: str) -> bool:
    """Whether a clause only opens the given images ("open the frames in this folder"), which every run does, or says
    when the ask beside it is wanted in a few words that name no result ("Before anyone segments this session")."""
    clause = without_header(clause)  # "Notes for the rotation student: open the frames in this folder"
    return bool(_ONLY_OPENS.match(clause)) and not set(extract_terms(clause).groups) & {*_RESULT_GROUPS, "plot"}


_VAGUE_ASK = re.compile(r"^\s*(?:(?:hi|hello|hey)\s+and\s+)?(?:for [^,.;]{0,40}?,?\s+)?(?:(?:i|we)(?:['’]d| would)? (?:want|need|like|"
                        r"would like)\s+)?(?:a|an|one)?\s*(?:(?:toy|worked|small|quick|simple|little|brief)\s+)*(?:example|demo|"
                        r"favou?r|hand|sanity check|check|question)\b(?:\s+(?:before|for|so)\b[^.;?!]{0,60})?\s*[.!]?\s*$", re.IGNORECASE)
"""A wish that names no analysis ("For a methods lecture I want a toy example", "Quick sanity check before we trust
anything downstream"): the direct ask beside it says what."""


_MOTIVE = re.compile(r"\b(?:i|we)\b[^.;:?!]*\b(?:want|need|would like|['’]d like|wanted) to (?:make sure|confirm|check|verify|be "
                     r"sure)\b[^.;:?!]*\b(?:behaves?|works?|as expected|is (?:fine|ok|okay|normal)|like the old)\b|"
                     r"\b(?:i|we)(?:['’]re| are| am|['’]m) (?:trying|hoping|wanting) to (?:decide|figure out|understand|work out|find out|"
                     r"tell|settle|determine|judge)\b|"
                     r"\b(?:i|we) (?:\w+ly )?(?:want|need) (?:the|my|our|these|those) (?:numbers?|results?|values?|figures?) to be "
                     r"(?:right|correct|accurate|reliable|solid|trustworthy)\b|"
                     # a worry, what the number is for, or whose figure it is ("I'm paranoid about drift", "I need a number to
                     # put in the rebuttal", "That's the robust figure they asked for")
                     r"\b(?:i|we)(?:['’]m|['’]re| am| are) (?:a bit |quite |very |really |slightly |a little )?(?:paranoid|worried|"
                     r"nervous|concerned|anxious|curious) (?:about|that|whether|if)\b|"
                     r"\b(?:i|we) (?:just |only )?need (?:a|the|one|some) (?:single |hard |solid )?(?:number|figure|value|result)s? "
                     r"(?:to (?:put|quote|cite|report|include|show|give|paste)|for (?:the|my|our|a|an))\b|"
                     r"^\s*(?:that|this|it)(?:['’]s| is) (?:the|a|what)\b[^.;:?!]{0,40}?\b(?:they|he|she|finance|reviewers?|i|we)"
                     r" (?:asked|need|needs|wanted|requested|want)(?: for)?\s*[.!]?\s*$", re.IGNORECASE)
"""Why the writer asks ("we want to make sure the new batch behaves like the old one"): the direct ask says what."""


def wishes_only(clause: str) -> bool:
    """Whether a clause only tells what someone else wishes, naming no specific ("My supervisor would like a first
    impression of how active the population was"), or is the writer's wish of no analysis ("I want a toy example"):
    beside a direct ask that is served, it says why, not what."""
    return ((bool(_THIRD_PARTY.match(clause)) and bool(_VAGUE.search(clause)) or bool(_VAGUE_ASK.match(clause))
             or bool(_MOTIVE.search(clause)))
            and not extract_terms(the_ask(clause)).groups)


_VAGUE = re.compile(r"\b(?:impression|idea|sense|feel(?:ing)?|picture|overview|first look|glimpse|to know (?:whether|if|how)|"
                    r"to understand|to see (?:whether|if|how))\b", re.IGNORECASE)


_RATE = re.compile(r"\b(?:imaged |recorded |acquired |sampled )?(?:at |@ ?)?\d+(?:\.\d+)?\s*(?:hz|fps|frames? per second|frames?/s)\b|"
                   r"\b\d+-frame\b", re.IGNORECASE)  # "a short 100-frame crop" describes the data




_WH_INSIDE = re.compile(r"(?<=\w)[,;]?\s+(?:which|where|when|what|how|if|whether)\b(?![^.!]*\?)", re.IGNORECASE)
"""A relative 'which' or 'where' inside a statement ("..., which took her a day per mouse.") asks nothing."""
_NAMED = re.compile(r"(?<=[\w,;:'’)] )[A-Z][\w'’-]*")
"""A capitalised word inside a sentence is a name ("ImageJ's Multi Measure"), not a task verb."""
_THIRD_PARTY = re.compile(r"\s*(?:\w+ly,?\s+)?(?:my|our|the) (?:[\w-]+ ){0,3}?(?:supervisor|pi|boss|advis[eo]r|collaborator|"
                          r"colleague|reviewer|referee|editor|student|postdoc|lab|group|team|manager|stakeholder|director|client|"
                          r"mentor|committee)s?\b(?: (?:in|at|from) [\w-]+)? (?:\w+ ){0,2}?(?:would like|wants?|wanted|asked|asks|needs?|"
                          r"requested|is asking|are asking|hopes?|is curious|are curious|wonders?|wondered)\b", re.IGNORECASE)
"""A sentence that tells what someone else wishes ("My supervisor would like a first impression of ..."): when the
writer also asks directly, the direct ask is what to do."""
_WANTED = re.compile(r"\bwhat (?:i|we)(?:['’]m| am|['’]re| are) (?:after|looking for|interested in|hoping for)\b", re.IGNORECASE)
"""A statement that names the ask ("the rise times are what I'm after")."""
_INSTRUCTION = re.compile(r"\s*(?:(?:for now|for the moment|for today|this time|today|first|then|now|next|just|simply|"
                          r"also|so|and)[,]?\s+)*(?:\w+ly\s+)?(?:watershed|threshold|smooth|denoise|deconvolve|average|filter|crop|downsample|"
                          r"bin|outline|collapse|squash|turn|project|stack|overlay|map|sum|correlate|quantify|rate|"
                          r"annotate|summari[sz]e|tabulate)\b", re.IGNORECASE)
"""A sentence that opens with a task verb is an instruction ("Watershed the mean image.")."""


_RESTRICTS = re.compile(r"^\s*(?:but |and )?(?:only|just|except|excluding|note that|keep in mind|bear in mind|be aware)\b", re.IGNORECASE)
"""A sentence that narrows the ask ("Only frames 500 to 1500 though", "Note that its first column is time") is part of it."""
_DOES_THAT = re.compile(r"\b(?:compute|calculate|measure|do|make|run|give me|get)\s+(?:that|this|it|those|them|these|both)"
                        r"(?:\s+(?:two|three|both|values|numbers))?"
                        r"(?=\s*(?:[?.!,;]|$)|\s+(?:for|with|on|in|per|please|too|again|as|and|now|by|at|across|over|from)\b)|"
                        # "Could you produce that cells-by-frames matrix?": the thing the sentence before described
                        r"\b(?:produce|compute|calculate|make|give me|get|create|build|generate)\s+(?:that|this|those|these)\s+"
                        r"(?:[\w-]+\s+)?(?:matrix|matrices|array|table|number|value|measure|quantity|map|image|figure|plot)\b",
                        re.IGNORECASE)
"""A direct ask that points back ("Could you compute that ...") asks what the sentence before it described."""


_DOUBT = re.compile(r"^\s*(?:(?:hi|hello|hey)\b[^,?]*,\s*)?(?:(?:can|could|would) (?:you|u|someone|somebody) (?:please )?)?"
                    r"(?:check|see|verify|confirm|find out|look into|tell (?:me|us))\s+(?:whether|if)\b[^?]*\?\s*$", re.IGNORECASE)
_SELF_JUDGE = re.compile(r"\b(?:i|we)(?:['’]ll| will| can)\s+(?:then\s+)?(?:have a look|take a look|look|do the (?:comparison|rest|"
                         r"check|judging|maths?)|compare|judge|decide|check|see|inspect|eyeball)\b|"
                         r"\b(?:should|will|would) (?:tell|show) (?:us|me)\b", re.IGNORECASE)
_COMPARES = re.compile(r"\b(?:more|less|fewer|slower|faster|higher|lower|larger|smaller|bigger|stronger|weaker|better|worse|"
                       r"changes?|differs?|different|than)\b", re.IGNORECASE)
_OPENERS_THEN = re.compile(r"^\s*(?:then|also|and|after that|next|afterwards)\b", re.IGNORECASE)
"""A doubt put as a question ("can you check whether cell 7 has transients?") that the writer will settle from what
a later sentence asks for ("Extract the traces and I'll have a look"), or a comparison that a direct ask for its
building block follows: the doubt is the motive, not the ask."""


def asking_part(clause: str) -> str:
    """The sentences of a clause that ask (a question, a request or modal word, a task verb), when others only
    tell ("The segmentation found 40 ROIs but I doubt all are somata. Score each one..."): what the telling
    sentences name is the data's story, not the ask. A clause whose sentences all ask, or all tell, is kept whole."""
    clause = without_header(clause)  # "Notes 3 Mar: ...": the heading asks nothing
    sentences = sentences_of(clause)
    told = story_sentences(sentences)  # "Sam did the cell detection last month.": what was done is not asked
    asking = [s for i, s in enumerate(sentences) if i not in told and not narrative(s, data=False) and (
              _ASK_FORM.search(_WH_INSIDE.sub(" ", _NAMED.sub(" ", s))) or _INSTRUCTION.match(s)
              or _WANTED.search(s) or _RESTRICTS.match(s) or _fragment_after_question(clause, s))]
    # "Reviewer 3 asked for 20-80 % rise times. Could you compute that?": the sentence pointed back to is asked too
    pointed = {sentences[i - 1] for i, s in enumerate(sentences) if i and s in asking and _DOES_THAT.search(s)}
    asking = [s for s in sentences if s in asking or s in pointed]
    # the doubt is the motive when the writer will judge it, or when it compares (a condition, a method) and a direct
    # ask for the building block follows ("... slower in the knockout? For each transient compute the half-decay time.")
    if len(asking) > 1 and _DOUBT.match(asking[0]) and (
            _SELF_JUDGE.search(" ".join(asking[1:]))
            or _COMPARES.search(asking[0]) and not _DOUBT.match(asking[1]) and not _OPENERS_THEN.match(asking[1])):
        asking = asking[1:]
    direct = [s for s in asking if not _THIRD_PARTY.match(s)]
    if direct and len(direct) < len(asking) and len(" ".join(direct).split()) >= 6 and not pointed:
        asking = direct  # "My supervisor would like a first impression ... Could you tell me the mean event rate?"
    if not asking and told:  # notes with no ask form beside a step put off: the notes are the ask
        asking = [s for i, s in enumerate(sentences) if i not in told]
    return " ".join(asking) if asking and len(asking) < len(sentences) else clause


_FINITE = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|does|did|will|would|can|could|should|shall|may|might|"
                     r"must|isn['’]t|aren['’]t|wasn['’]t|don['’]t|doesn['’]t|didn['’]t|won['’]t|comes?|came|goes|went|seems?|"
                     r"looks?|looked|says?|said|thinks?|wants?|needs?|\w{3,}ed)\b", re.IGNORECASE)


def _fragment_after_question(text: str, sentence: str) -> bool:
    """A verbless fragment typed in lower case after a question ("... defined? cite the source", "? top 5 passages"):
    it goes on with the ask. A statement there ("? the activity-based method is too slow") tells why."""
    at = text.find(sentence)
    return (at > 0 and sentence[:1].islower() and text[:at].rstrip()[-1:] in "?!" and not _FINITE.search(sentence))


_PER_CELL = re.compile(r"\b(?:per|each|every|for each|for every)[\s-]+(?:single\s+)?(?:cell|roi|neuron|soma)s?\b"
                       r"(?!\s+(?:that|which|who)\b)", re.IGNORECASE)


def asks_per_cell(text: str) -> bool:
    """Whether something is asked per cell ("a max projection for each cell"); "every cell that fired" describes them."""
    return bool(_PER_CELL.search(text))


def the_ask(clause: str) -> str:
    """What a clause asks, to read its specifics from: its asking sentences, names in quotes and file names
    reduced, asides in parentheses that name no method left out."""
    from planexec.coverage_terms import without_names
    from planexec.coverage_wording import without_plain_asides

    return without_plain_asides(without_names(asking_part(clause)))


_SETTING = re.compile(r"(?<![/\w.])\d+(?:\.\d+)?\s*(?:%|st|nd|rd|th|px|pixels?|frames?|s|ms|sec\w*|min\w*|hz|fps|µm|um|sds?)?"
                      r"(?![/\w])", re.IGNORECASE)
"""A number that could set something ("the 20th percentile", "3 SD", "30 Hz"); "layer 2/3" or "GCaMP6f" set nothing."""


_SEE = re.compile(r"\b(?:show|display|see|view|look at|eyeball|picture|pics?|snapshot|contours?|outlined?|stacked|ticked|"
                  r"illustrat\w*|png|svg|pdf|jpe?g)\b", re.IGNORECASE)
_RESULT_GROUPS = ("statistic", "measure", "feature", "shape")
_BACKDROP = re.compile(r"\b(?:on top of|on|over|onto|against|in) (?:the|a|its) (?:mean|average|max\w*|median|time-averaged)[- ]"
                       r"(?:[\w-]+ )?(?:image|projection|frame|picture)\b", re.IGNORECASE)
"""The image a figure is drawn on ("outline each cell on the mean image") names no result it asks for."""
_PLOT_STATISTICS = re.compile(r"\b(?:box[- ]?plot|fbplot)\s+(?:statistics|stats)\b", re.IGNORECASE)
_DRAWN = re.compile(r"\bwith (?:the )?[\w -]{0,30}? (?:highlighted|marked|shown|drawn|labell?ed|in (?:red|bold|colou?r))\b", re.IGNORECASE)
"""What a figure marks ("with the depth-based median highlighted") is drawn, not a result asked for."""


def asks_to_see(clause: str, asked: Named) -> bool:
    """ "show me the ROIs on the image" asks for a picture; "show me the mean amplitude" a number, "show me the
    passages" text."""
    # a kind of figure (a boxplot, a heatmap) is a picture whatever else it names, but "functional boxplot statistics"
    # are the numbers a boxplot is drawn from
    if asked.terms.groups.get("plot") and not _PLOT_STATISTICS.search(clause):
        return True
    plain = _DRAWN.sub(" ", _BACKDROP.sub(" ", clause))
    groups = extract_terms(plain).groups if plain != clause else asked.terms.groups
    return (bool(_SEE.search(clause)) and not any(g in groups for g in _RESULT_GROUPS)
            and "paper" not in asked.objects)  # "show me the relevant passages" asks for text


_ADVICE = re.compile(r"^\s*(?:and\s+)?(?:how (?:should|shall|ought)\b|how (?:do|does|can|would) (?:i|we|one|you|people)\b|"
                     r"what (?:is|are|would be) the (?:best|right|recommended|usual|standard)\b|"
                     r"which [\w-]+ (?:should|is best|is (?:recommended|suggested|advised)|do (?:they|the \w+) (?:recommend|suggest|advise))\b|"
                     r"why (?:should|do (?:people|we|you|they))\b)",
                     re.IGNORECASE)
"""Advice asked ("how should F0 be chosen", "how do people pick r"); "how do the cells' rates compare" asks the data."""


def asks_advice(clause: str) -> bool:
    """Whether a clause asks how a thing should be done ("how should the baseline F0 be chosen?"): advice, which a
    literature search gives, not a computation."""
    return bool(_ADVICE.match(clause))


_SOURCES = re.compile(r"\bwhere (?:\w+ ){0,3}comes? from\b|\bsources?\b|\bcit(?:e|ation)s?\b|\breferences?\b|\bquote\b",
                      re.IGNORECASE)
"""What a literature search's passages are asked with: where each comes from, its source or citation."""


def asks_sources(clause: str) -> bool:
    """Whether a clause asks where a search's passages come from (their sources, citations, references)."""
    return bool(_SOURCES.search(clause))


# A statement, not a request: "this was imaged at 10 Hz", "the somata are roughly 7 px wide".
_STATEMENT = re.compile(r"^(?:this|it|they|these|those|the\s+\w+|my\s+\w+|our\s+\w+|\w+s|acquisition|imaging|recording|sampling|"
                        r"frame\s+rate|(?:the\s+)?decay(?:\s+time)?(?:\s+constant)?)\s+"
                        r"(?:\w+\s+)?(?:was|were|is|are|has been|have been|ran|runs)\b", re.IGNORECASE)


_GREETING = re.compile(r"^\s*(?:hello|hi|hey|dear \w+|good (?:morning|afternoon|evening))\b[,!]?\s*(?:and\s+)?", re.IGNORECASE)


def states_parameters(clause: str) -> dict[str, float]:
    """The analysis parameters a clause only states (planexec.params reads them for the run), else {}."""
    from planexec.params import from_request

    clause = _GREETING.sub("", clause)  # "Hello, the imaging ran at 10 Hz"
    if only_a_rate(clause):  # "... time constant in s? 10 fps": the frame rate alone
        return from_request(clause)
    # "the cells that are larger than 8 px" states a filter, not a parameter: a statement names no specific
    # the names of what it states ("the decay time constant is 0.7 s") are no specifics it asks
    if "?" in clause or not _STATEMENT.match(clause.strip()) or extract_terms(_PARAMETER_NAMES.sub(" ", clause)).groups:
        return {}
    return from_request(clause)


_PARAMETER_NAMES = re.compile(r"\b(?:frame\s+rate|(?:indicator['’]s\s+)?decay(?:\s+time)?(?:\s+constant)?|tau|"
                              r"(?:cell|soma)\s+diameter|neuropil\s+(?:coefficient|factor))\b", re.IGNORECASE)


__all__ = ["answer_form_only", "asking_part", "asks_advice", "asks_per_cell", "asks_sources", "asks_the_dff", "asks_to_see", "only_a_rate", "opens_or_times_only",
           "refers_back_only", "says_what_for", "states_parameters", "tells_only", "the_ask", "wishes_only"]
