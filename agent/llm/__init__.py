"""Language models behind one narrow interface (`agent.llm.base.Model`)."""
