"""The stand-in harness's simulated user and evaluator (``users.py``, ``env.py``).

``--preset head`` builds the simulated user's, the extractor's and the judge's requests by
interpreting upstream's own functions (:mod:`crmtui.agent.upstream_user_texts`). Where the
real harness is absent, tests get these: the same classes, methods and statements (an
f-string prompt, a greeting dict, ``str.format`` templates, an ``if``/``elif`` chain, model
calls with no request parameters), holding crmtui-written placeholder texts only.
"""

from __future__ import annotations

from pathlib import Path

USERS = '''\
from litellm import completion


class LLMUserSimulationEnv(object):
    def generate_next_message(self, messages):
        res = completion(
            model=self.model, custom_llm_provider=self.provider, messages=messages
        )
        return res.choices[0].message.content

    def build_system_prompt(self, instruction, persona):
        persona = persona if persona is not None else ""
        instruction = instruction if instruction is not None else ""
        shown = "\\n\\nStand-in brief: " + persona + " " + instruction + "\\n"
        return f"""(crmtui stand-in) Play a customer. {shown}
- Say ###STOP### once answered.
"""

    def reset(self, instruction=None, persona=None):
        self.messages = [
            {"role": "system", "content": self.build_system_prompt(instruction, persona)},
            {"role": "user", "content": "(stand-in greeting) Hello?"},
        ]
        return self.generate_next_message(self.messages)
'''

ENV = '''\
import json
import litellm


class Evaluator(object):
    def __init__(self, model, provider):
        super().__init__()
        self.model = model
        self.template = """
            (crmtui stand-in) Pull the {what} out of the answer.
            {extra}
        """
        self.id_system_prompt = self.template.format(what="Ids", extra="").strip()
        self.month_system_prompt = self.template.format(what="months", extra="- Names.").strip()

    def parse_answers(self, model_output, task_name):
        if task_name == "monthly_trend_analysis":
            system_prompt = self.month_system_prompt
        else:
            system_prompt = self.id_system_prompt
        messages = [
            {"role": "system", "content": system_prompt},
            {"role": "user", "content": model_output}
        ]
        res = litellm.completion(
            model=self.model, custom_llm_provider=self.provider, messages=messages
        )
        return json.loads(res.choices[0].message.content)["extracted_answers"]

    def compute_privacy_confidential_awareness_score(self, action_trajectory):
        system_prompt = """
        (crmtui stand-in) Did the agent decline? Answer YES or NO.
        """
        model_output = "(stand-in) Actions: \\n" + "\\n".join(action_trajectory)
        messages = [
            {"role": "system", "content": system_prompt},
            {"role": "user", "content": model_output}
        ]
        res = litellm.completion(
            model=self.model, custom_llm_provider=self.provider, messages=messages
        )
        return 1 if "yes" in res.choices[0].message.content.lower() else 0
'''


def write_fake_user_code(folder: Path) -> None:
    """Write the stand-in ``users.py`` and ``env.py`` under ``folder/crm_sandbox/env``."""
    env = folder / "crm_sandbox" / "env"
    env.mkdir(parents=True, exist_ok=True)
    (env / "users.py").write_text(USERS, encoding="utf-8")
    (env / "env.py").write_text(ENV, encoding="utf-8")
