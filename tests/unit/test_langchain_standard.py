"""LangChain's own standard tool tests (langchain-tests) on ``searchain_tool``."""

from __future__ import annotations

from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from searchain.integrations import searchain_tool
from tests.conftest import PASSAGES
from tests.unit.test_integrations import Q1, context


class Standard:
    """The tool under test: SearChain with a scripted model, a table retriever and reader."""

    @property
    def tool_constructor(self) -> BaseTool:
        return searchain_tool(context(dict(PASSAGES)))

    @property
    def tool_constructor_params(self) -> dict:
        return {}

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"question": Q1}


class TestSearchainToolUnit(Standard, ToolsUnitTests):
    """Name, input schema, the example call against the schema."""


class TestSearchainToolIntegration(Standard, ToolsIntegrationTests):
    """Invoked with and without a tool call, sync and async: the output is a string."""
