"""Asides inside a clause that ask nothing (issue 12): another person's part, a method turned down, a doubt, a step put
off, a reason that tells what went before, the writer's own next move, and an input someone made.

Whole sentences of story are left out by `planexec.clause_mood`; these patterns find the story inside a sentence that
also asks ("Please count the cells; the max projection was already made by Tuula"), up to the next punctuation, so
the coverage decision reads the ask's specifics without it (`planexec.coverage_terms.without_purpose`).
"""

from __future__ import annotations

import re

__all__ = ["without_asides", "without_makers"]

_ASIDES = re.compile(r"\bbefore (?:i|we|you|they|anyone|someone|people|the team|(?-i:[A-Z][a-z]+)) [^,.;:?!]*|"
                     # someone else's part ("Milo will plot it", "segmentation stays with Kofi", "the report is Mia's",
                     # "Hugo says zero-lag correlation is what the old paper used")
                     r"\b(?!(?-i:We|I|You|They|It|He|She|This|That|There|Someone|Nobody|Everyone)\b)(?-i:[A-Z][a-z]+)(?:['’]ll| "
                     r"will| is going to| plans to| says| said| thinks| reckons| suspects| doubts| believes| insists| told us)\b"
                     r"(?:(?!,?\s+but\b)[^.;:?!])*|"
                     r"[^.;:?!]*\b(?:stays?|remains?|is|are) with (?-i:[A-Z][a-z]+)\b[^.;:?!]*|"
                     r"[^.;:?!]*\b(?:is|are|was|were) (?-i:[A-Z][a-z]+)['’]s(?: job| task| part| attempt| try| idea| project| thing)?"
                     r"(?: (?:afterwards|later|next \w+|last \w+|tomorrow|after that|now|then))?(?=\s*(?:[.;:?!,]|$))|"
                     # a step someone else did or does, after the ask ("...; the mean image was already made by Tuula")
                     r"(?<=[;,:])\s*(?:the|our|my|this|that|these|those|all|its|their)\s+[^,.;:?!]*?\b(?:(?:will|shall|is going to|"
                     r"are going to)\s+be|is|are|was|were|has been|have been)\s+(?:\w+\s+)?(?:\w{3,}ed|done|run|made|drawn|tried|"
                     r"written|taken)\s+(?:\w+\s+)?by\s+(?:(?-i:[A-Z][a-z])|the|our|my|his|her|their|another)[^,.;:?!]*|"
                     # a step already done, opening the sentence or after a comma ("Registration has already been run, so ...")
                     r"(?:^|(?<=[;,:.!?]))\s*(?:the\s+|our\s+|my\s+)?(?:[\w/-]+\s+){0,3}?(?:has|have) (?:already |just |now )?been "
                     r"(?:\w{3,}ed|run|done|made|drawn)\b[^,.;:?!]*|"
                     r"(?<=[;,:])\s*(?:the|our|my|this|that|these|those)\s+[^,.;:?!]*?\b(?:exists?|is there|are there|is available|"
                     r"are available)\s+already\b[^,.;:?!]*|"
                     # a part the writer keeps ("the plotting I'll do myself")
                     r"\b(?:the|any|all)\s+(?:[\w/-]+\s+){0,3}?(?:i|we)(?:['’]ll| will| can| shall)\s+(?:do|handle|make|draw|run|"
                     r"take care of|sort out)\s+(?:myself|ourselves|later|separately|by hand|afterwards)\b|"
                     # a method turned down, a doubt, a step put off inside the sentence ("so a flat F0 would be useless",
                     # "which makes me doubt our segmentation", "with neuropil correction postponed until ...")
                     r"[^,.;:?!]*\b(?:would be|is|was|are|['’]d be|feels?(?: like)?|seems?(?: like)?) (?:useless|wrong|no good|"
                     r"pointless|overkill|misleading|too slow|not enough)\b[^,.;:?!]*|"
                     r"\bwhich makes (?:me|us) (?:doubt|question|worry about|suspect)\b[^,.;:?!]*|"
                     r"\bwith (?:the )?[\w /-]{1,40}? (?:postponed|deferred|on hold|left for later)\b[^,.;:?!]*|"
                     r"[^,.;:?!]*\b(?:is|are) (?:a separate (?:discussion|question|issue|topic|step|project)|postponed|deferred|"
                     r"on hold)\b[^,.;:?!]*|"
                     # a reason that tells what went before ("since the max projection looked too noisy")
                     r"\b(?:since|because|as|given that) (?:the|our|my|that|this|those|these|last) [^,.;:?!]*\b(?:looked|seemed|"
                     r"was|were|came out|turned out|failed|missed|didn['’]t|wasn['’]t|weren['’]t)\b[^,.;:?!]*|"
                     # a step put off ("we're postponing the dF/F analysis until the new batch arrives, but ...") and
                     # what happened last time ("...; last time that inflated the total")
                     r"\b(?:i|we)(?:['’]m|['’]re| am| are) (?:postponing|deferring|parking|shelving|holding off on|leaving out|"
                     r"putting off)\b[^,.;:?!]*|(?<=[;,:])\s*last (?:time|week|month|year|round|session)\b[^,.;:?!]*|"
                     r"\b(?:i|we)(?:['’]m|['’]re| am| are) (?:currently |just )?(?:comparing|studying|investigating|testing|building|developing|"
                     r"designing|debugging|benchmarking|prototyping|teaching|running|giving|organi[sz]ing|hosting)\b[^.;:?!]*|"
                     r"\b(?:i|we)(?:['’]ll| will| are going to| plan to| intend to)\b(?:(?!,?\s+but\b(?!\s+not\s+(?:today|now|yet|here|this time)\b))[^.;:?!])*|"
                     # what the writer is busy with ("I'm filling in the table for the methods section")
                     r"\b(?:i|we)(?:['’]m|['’]re| am| are) (?:currently |just )?(?:filling in|preparing|writing|drafting|putting together|"
                     r"assembling|working on)\b[^,.;:?!]*|"
                     r"\b(?:wants?|plans?|intends?|is going|are going) to [^.;:?!]*\bnext (?:week|month|year|time)\b|"
                     r"\b(?:want|need|plan) to (?:look at|deal with|handle|do) (?:that|this|it|those) (?:separately|later|afterwards)\b|"
                     r"[^.;:?!]*\b(?:can|will have to|could) wait\b|"
                     # a step that comes later ("the activity-based one comes later", "Traces we'll do next week")
                     r"[^.;:?!]*\b(?:comes?|will come|follows?|is planned|are planned|is scheduled) (?:later|tomorrow|afterwards|after that|"
                     r"next(?: \w+)?)\b|"
                     r"[^.;:?!]*\b(?:i|we)(?:['’]ll| will| can) (?:do|handle|run|tackle|look at|deal with) (?:it |them |that |those )?"
                     r"(?:later|tomorrow|afterwards|next \w+|another day)\b|"
                     # who wants the result by when ("Finance want the figure before the quarterly review")
                     r"\b\w+ (?:want|wants|need|needs) (?:the|it|this|that|those) (?:figures?|numbers?|results?|values?|totals?)? ?"
                     r"(?:before|by|for) (?:the |our |their |my )?[^.;:?!]*",
                     re.IGNORECASE)
"""What the writer does next or plans ("Before I argue with the reviewer, could you look up...", "we'll test that
across animals later"): up to the next punctuation."""


_SOMEONES_INPUT = re.compile(r"\b((?:the|that|this|these|those) (?:[\w-]+ ){0,2}?)(?-i:[A-Z][a-z]+) (?:already |just )?"
                             r"(?:\w+ed|made|ran|drew|built|did)\b", re.IGNORECASE)
"""An input someone made ("the stack Fatou registered"): its making is not asked."""


def without_asides(text: str) -> str:
    """`text` with what the writer or others do next, did, or turn down blanked ("Milo will plot it", "we'll test that
    across animals later")."""
    return _ASIDES.sub(" ", text)


def without_makers(text: str) -> str:
    """`text` without who made an input ("the stack Fatou registered" -> "the stack")."""
    return _SOMEONES_INPUT.sub(lambda m: m.group(1), text)
