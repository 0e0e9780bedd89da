"""The graphs' states: SearChain's (``State``) and IRCoT's and the baselines' (``ReasoningState``).

SearChain's state is what it knows at each step of answering one question.

The Tree-of-Reasoning is kept as flat lists (``nodes``, ``branches``) with ids, which checkpoint,
stream and render as JSON easily; the correct reasoning path and the processed queries are derived
from it rather than stored twice.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.channels.ephemeral_value import EphemeralValue

from searchain.channels import GivenValue, added_messages, continued, delta, replaced
from searchain.documents.uploads import Upload
from searchain.support import Support
from searchain.types import Passage, Source, Verifier

KnowledgeSource = Literal["llm", "corrected", "completed", "edited"]
"""Where an accepted node's answer came from: the LLM itself, IR correcting it, IR completing it,
or a person editing it (``searchain edit``)."""

FormatFailure = Literal[
    "no_chain",
    "no_reader_answer",
    "no_final_content",
    "no_final_answer",
    "invalid_action",
    "no_subquestions",
    "no_query",
    "no_value",
]
"""A reply its parser could not read: no Chain-of-Query in it, a chain with no ``[Final Content]``
(nor an unsolved query to end it), no final answer where the prompt asks for one ("So the answer
is ..."), a ReAct or ToolFormer step with no valid action, a Least-to-Most decomposition with
no sub-question, a DSP hop with no "Search Query:", a Tree-of-Thought evaluation that is none of
sure/likely/impossible. The run goes on (a fallback answers), but these are where iterative
methods silently lose points, so they are counted."""

ContentSource = Literal["", "model", "composed"]
"""Who wrote the final content: the model (its last reply), or searchain, which composes one
from the reasoning path when the model's reply cited nothing; empty when no reply was written."""
AnswerSource = Literal["", "model", "path"]
"""Where the short answer came from: stated in the model's last reply, or (the model stated
none) the last reasoning step's answer; empty when there is none."""

StopReason = Literal["", "chain_passed", "max_rounds", "no_chain"]
"""Why reasoning ended: the whole chain passed, the round budget ran out, or no chain was found."""
STATE_VERSION = 1
"""Bumped when the state's shape changes incompatibly; checkpoints of another version are
refused (a new field with a default, such as ``settings``, loads from older checkpoints)."""


@dataclass
class TreeNode:
    """A distinct sub-query in the Tree-of-Reasoning."""

    id: int
    """Position in ``State.nodes``; stable for the whole run."""
    branch: int
    """The branch (generated chain) that first asked this query."""
    parent: int | None
    """The node before it on its branch; a branch's first new node hangs off the branch root."""
    query: str
    """The sub-query as the LLM wrote it."""
    llm_answer: str = ""
    """The LLM's own answer (empty when it marked the query unsolved)."""
    unsolved: bool = False
    """The LLM marked it ``[Unsolved Query]`` (or gave no answer)."""
    passage: Passage | None = None
    """Top-1 retrieved passage, once traversal reached the node."""
    reader_answer: str = ""
    """The reader's answer span from ``passage``."""
    confidence: float | None = None
    """The reader's confidence in ``reader_answer``; ``None`` until read."""
    calibrated: bool = True
    """Whether ``confidence`` is on the reader's own scale (see ``ReaderAnswer.calibrated``):
    ``False`` for a self-rating or a span probability that could not be measured."""
    source: KnowledgeSource | None = None
    """Set when the node is accepted onto the reasoning path; ``None`` if never reached."""
    answer: str = ""
    """The accepted answer: the LLM's, or the reader's when IR corrected or completed it."""
    step: int | None = None
    """1-based position on the reasoning path: the number ``[n]`` that cites this node."""
    reused: bool = False
    """Answered in an earlier turn of the thread; accepted again without searching."""
    rejected: str = ""
    """A correction a human rejected (approval mode): the reader's answer that was not used."""
    read: bool = False
    """Retrieved and read (``passage`` stays ``None`` when IR found nothing). A whole chain is
    read at once, so nodes past a correction keep readings the walk never used."""
    theta: float | None = None
    """The confidence threshold Verify weighed ``confidence`` against (set when it did); ``None``
    also where the reader's calibration found no usable θ, so Verify corrected nothing."""
    support: Support | None = None
    """Set when accepted, by the run's verifier (:mod:`searchain.support`): ``stated`` when
    ``passage`` states ``answer``, ``unstated`` when it does not (a citation of this step would
    not back it), ``unverifiable`` when the lexical rule cannot tell. An answer IR took from the
    passage is judged like any other: a reader's span can be made up or empty."""

    def reading(self) -> dict[str, Any]:
        """What the reader made of this node's passage, as fields another node can take."""
        return {
            "passage": self.passage,
            "reader_answer": self.reader_answer,
            "confidence": self.confidence,
            "calibrated": self.calibrated,
        }


def reasoning_path(nodes: Iterable[TreeNode]) -> list[TreeNode]:
    """The accepted nodes (those with a ``step``) of the correct reasoning path, in step order."""
    return sorted((node for node in nodes if node.step is not None), key=lambda n: n.step or 0)


@dataclass
class Branch:
    """One generated Chain-of-Query: a branch of the Tree-of-Reasoning."""

    id: int
    """Position in ``State.branches``; equals the round that generated it, minus one."""
    root: int | None
    """The corrected or completed node this chain continues from; ``None`` for the first."""
    nodes: list[int]
    """The chain's nodes in order, as tree node ids (repeated queries map to earlier nodes)."""
    final_content: str | None = None
    """The ``[Final Content]`` the LLM wrote at the end of this chain, if any."""


@dataclass
class Reference:
    """A citation ``[n]`` of the final content resolved to its passage."""

    n: int
    """The number used in the final content."""
    node: int
    """The tree node (reasoning step) it cites."""
    id: str
    """Passage id in the corpus."""
    title: str
    """Passage title."""
    text: str
    """Passage text."""
    support: Support | None = None
    """Whether the passage states the cited step's answer (the step's ``support``); ``None``
    only in results checkpointed before verdicts existed."""
    inserted: bool = False
    """Searchain wrote this citation (a composed final content), not the model."""
    source: Source | None = None
    """The file, page and section the passage was cut from (a documents index); None for a
    benchmark corpus's passage."""
    same_as: int | None = None
    """The earlier reference ``[m]`` whose passage this one is (two steps found one passage):
    shown as "the passage of [m]" with this step's own verdict, its text not repeated."""


@dataclass
class Turn:
    """An earlier question of the same thread, kept for follow-ups."""

    question: str
    """The question asked."""
    answer: str
    """Its final answer."""
    steps: list[TreeNode]
    """Its accepted reasoning path (reusable by later questions)."""


@dataclass(kw_only=True)
class ThreadSettings:
    """What a thread keeps of the context it was started with (see ``context_of``)."""

    settings: dict[str, Any] = field(default_factory=dict)
    """The context fields the thread's runs set to non-default values; a later run that gives
    no context (a resumed approval on a LangGraph server) runs with these, not the defaults."""


@dataclass
class Edit:
    """A person's answer for a step of the thread's current question."""

    node: int
    """The step's node id (``TreeNode.id``)."""
    answer: str
    """The answer that replaces the step's; the LLM re-plans from it."""


@dataclass(kw_only=True)
class InputState:
    """What a caller provides: a question, or (a chat front-end) the conversation ending in one."""

    question: Annotated[str, GivenValue(str)] = ""
    """The complex question (or claim, for fact checking) to answer. A run given none (only
    ``messages``) still reads the last run's here, unmarked: it must ask by a message."""
    task: str | None = None
    """Prompt family: qa, yesno, factcheck, slot, longform, no_ir; ``None`` uses the context's."""
    messages: Annotated[list[AnyMessage], delta(added_messages)] = field(default_factory=list)
    """The person's conversation, as chat front-ends read and write it: each question as a human
    message, each answer (with its citations and references, in Markdown) as an AI message,
    which shows the run's progress while it runs. A new human message at the end is the
    question of a run given no ``question``; earlier ones are the conversation so far."""


@dataclass(kw_only=True)
class ChatState:
    """What a run keeps to talk with a person through ``messages``."""

    asked_id: str = ""
    """The id of the human message the last run took as its question: a later run whose last
    human message has another id was asked by ``messages``, not ``question``."""
    reply_id: str = ""
    """The id of the AI message that answers the current question: its progress while the run
    goes on, the answer once it ends (the same message, replaced)."""
    progress: list[str] = field(default_factory=list)
    """What the current question's run has done so far, one line a step, shown in the reply."""
    uploads: Annotated[list[Upload], operator.add] = field(default_factory=list)
    """The files sent in this thread's messages, read into passages: the thread's own corpus,
    searched with the index or alone (``Context.uploads_searched``). They live in the thread,
    so they are its user's, and go when the thread is deleted."""


@dataclass(kw_only=True)
class SearchainInput(InputState):
    """What a caller provides to SearChain: a question, or an edit of a step of the last one."""

    edit: Annotated[Edit | dict[str, Any] | None, EphemeralValue(object)] = None
    """Instead of a question: correct a step of the current question (``{"node", "answer"}``)
    and re-plan from it. Seen by the run it starts only, so a refused edit never lingers."""


@dataclass(kw_only=True)
class OutputState(InputState):
    """What a caller gets back."""

    answer: str = ""
    """The final answer, short form (a label for yes/no and fact checking)."""
    final_content: str = ""
    """The final content with ``[n]`` citations that resolve to ``references``."""
    content_source: ContentSource = ""
    """Who wrote ``final_content``: ``model`` or ``composed`` (by searchain, from the path)."""
    model_content: str = ""
    """The model's own last reply, its ``[n]`` markers resolved: what answer metrics read. The
    same as ``final_content`` unless that was composed; empty when the model wrote none."""
    trace_reply: str = ""
    """The model's last reply exactly as it wrote it, every ``[n]`` marker kept (those that
    point at no step too): what ALCE's citation figures score."""
    answer_source: AnswerSource = ""
    """Where ``answer`` came from: ``model`` (stated in its reply) or ``path`` (the last
    step's answer, since the model stated none)."""
    references: list[Reference] = field(default_factory=list)
    """The passages cited by ``final_content``, by number."""
    unresolved_citations: list[int] = field(default_factory=list)
    """Citation numbers the LLM wrote that point at no reasoning step (removed from the text)."""
    nodes: Annotated[list[TreeNode], delta(replaced)] = field(default_factory=list)
    """The Tree-of-Reasoning's nodes (of the current question)."""
    branches: list[Branch] = field(default_factory=list)
    """The Tree-of-Reasoning's branches, one per generated chain."""
    rounds: int = 0
    """How many chains the LLM generated (bounded by ``Context.r_max``)."""
    stop_reason: StopReason = ""
    """Why reasoning ended."""
    history: Annotated[list[Turn], operator.add] = field(default_factory=list)
    """Earlier questions of this thread, oldest first."""
    format_failures: list[FormatFailure] = field(default_factory=list)
    """This question's replies its parsers could not read, one entry each, in order."""


@dataclass(kw_only=True)
class State(OutputState, SearchainInput, ThreadSettings, ChatState):
    """The full working state of one SearChain run."""

    question_asked: str = ""
    """The question the current nodes answer (``question`` is overwritten by the next input)."""
    llm_messages: Annotated[list[dict[str, str]], delta(continued)] = field(default_factory=list)
    """The conversation with the LLM: the prompt, its chains and the feedback between them, as
    ``{"by": "searchain" | "llm", "text"}`` turns: not messages, which LangGraph would stream
    to a chat front-end as if they were the person's."""
    messages_version: int = 0
    """1 once ``messages`` is the person's conversation. A pre-release's threads (0, with a
    question asked) kept the LLM's conversation there; a run on one is refused
    (:func:`searchain.conversation.refuse_legacy`)."""
    cursor: int = 0
    """Position in the current branch's ``nodes`` that traversal has reached."""

    @property
    def path(self) -> list[TreeNode]:
        """The accepted nodes of the correct reasoning path, in order."""
        return reasoning_path(self.nodes)

    def with_node(self, node: TreeNode) -> list[TreeNode]:
        """``nodes`` with ``node`` put in place of the node with its id."""
        return [node if other.id == node.id else other for other in self.nodes]

    @property
    def current(self) -> TreeNode | None:
        """The node traversal stands on, or ``None`` past the end of the current branch."""
        if not self.branches or self.cursor >= len(self.branches[-1].nodes):
            return None
        return self.nodes[self.branches[-1].nodes[self.cursor]]


@dataclass(kw_only=True)
class ReasoningOutput(InputState):
    """What an IRCoT or Table-1 baseline run returns."""

    answer: str = ""
    """The answer of the answer step."""
    generation: str = ""
    """Everything the LLM wrote towards the answer (reasoning, then the answer step's reply):
    the "generated output" the papers' cover-EM looks in."""
    cot: list[str] = field(default_factory=list)
    """The chain of thought, one sentence per reasoning step."""
    paragraphs: list[Passage] = field(default_factory=list)
    """Every paragraph retrieved, in order of first retrieval, at most ``ircot_max_paragraphs``."""
    steps: int = 0
    """Reasoning steps taken (bounded by ``ircot_max_steps``)."""
    queries: list[str] = field(default_factory=list)
    """The retrieval queries: the question, then each new reasoning sentence."""
    format_failures: list[FormatFailure] = field(default_factory=list)
    """The replies its parsers could not read, one entry each, in order."""


@dataclass(kw_only=True)
class ReasoningState(ReasoningOutput, ThreadSettings, ChatState):
    """The working state of IRCoT and the Table-1 baselines: question, paragraphs, reasoning."""

    done: bool = False
    """A baseline's loop has its final answer (Self-Ask, ReAct)."""
    votes: int = 0
    """CoT-SC: how many samples gave the majority answer (Verify-and-Edit edits below half)."""
    frontier: list[list[str]] = field(default_factory=list)
    """Tree-of-Thought: the chains of reasoning sentences kept after the last step, best first."""
    pools: list[list[Passage]] = field(default_factory=list)
    """Tree-of-Thought: each kept chain's own paragraphs, in ``frontier``'s order."""


def checkpoint_serializer() -> Any:
    """A LangGraph serializer that knows searchain's state types.

    Pass it to a checkpointer (``SqliteSaver(conn, serde=checkpoint_serializer())``) so its
    checkpoints load without "unregistered type" warnings, and keep loading once LangGraph
    blocks unregistered types.
    """
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    kinds = (TreeNode, Branch, Reference, Turn, Edit, Passage, Source, Upload)
    types = [(cls.__module__, cls.__name__) for cls in kinds]
    return JsonPlusSerializer(allowed_msgpack_modules=types)


def untraced() -> dict[str, Any]:
    """What Trace writes, cleared: a question not traced yet (a new turn, an edited step)."""
    return {
        "answer": "",
        "answer_source": "",
        "final_content": "",
        "content_source": "",
        "model_content": "",
        "trace_reply": "",
        "references": [],
        "unresolved_citations": [],
    }


def unreasoned() -> dict[str, Any]:
    """What an IRCoT or baseline run works out, cleared: a new question of the thread.

    Every field of :class:`ReasoningState` but what a caller gives, the thread's settings and
    the chat's own, at its default.
    """
    kept = {f.name for cls in (InputState, ThreadSettings, ChatState) for f in fields(cls)}
    return {
        f.name: f.default_factory() if f.default_factory is not MISSING else f.default
        for f in fields(ReasoningState)
        if f.name not in kept
    }


def accept(
    node: TreeNode, source: KnowledgeSource, answer: str, step: int, support: Support
) -> TreeNode:
    """A copy of ``node`` accepted onto the reasoning path as step ``step``."""
    return replace(node, source=source, answer=answer, step=step, support=support)


def verdict(
    node: TreeNode, answer: str, verifier: Verifier, *, long_form: bool, alpha: float
) -> Support:
    """Whether ``node``'s passage states ``answer``, by ``verifier``; no passage states nothing.

    Every accepted answer is weighed, IR's own included: a correction or a completion is a
    reader's span, which an LLM reader can make up and any reader can leave empty.
    """
    passage = node.passage
    if passage is None or not answer.strip():
        return "unstated"
    found = verifier.verdict(
        passage, node.query, answer, node.reader_answer, long_form=long_form, alpha=alpha
    )
    if found not in ("stated", "unstated", "unverifiable"):
        raise ValueError(f"verifier {verifier.name!r} gave the verdict {found!r}")
    return found  # type: ignore[return-value]
