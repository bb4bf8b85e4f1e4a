import os
import tempfile
import unittest

from workflow_runner.errors import Unsupported
from workflow_runner.expressions import (Expression, Status, condition, condition_text,
                                         hash_files, interpolate, render, tokenize)


def context(**overrides):
    value = {
        "github": {"event_name": "push", "workspace": "/nowhere", "run_id": "7"},
        "matrix": {"shard": 2},
        "steps": {"first": {"outputs": {"seen": "yes"}, "outcome": "success",
                            "conclusion": "success"}},
        "env": {"LEVEL": "job"},
        "job": {"status": "success"},
    }
    value.update(overrides)
    return value


def evaluate(text, status=None, **overrides):
    return Expression(text, context(**overrides), status).evaluate()


class TokenizerTests(unittest.TestCase):
    def test_tokenize_readsEveryKindAndDoubledQuotes(self):
        self.assertEqual(
            tokenize("a.b == 'it''s' && !(1.5 >= -2)"),
            [("name", "a"), ("op", "."), ("name", "b"), ("op", "=="), ("string", "it's"),
             ("op", "&&"), ("op", "!"), ("op", "("), ("number", "1.5"), ("op", ">="),
             ("number", "-2"), ("op", ")")])

    def test_tokenize_unknownCharacter_isUnsupported(self):
        with self.assertRaisesRegex(Unsupported, "cannot read the expression"):
            tokenize("a ; b")


class EvaluationTests(unittest.TestCase):
    def test_literals(self):
        self.assertEqual(evaluate("true"), True)
        self.assertEqual(evaluate("null"), None)
        self.assertEqual(evaluate("'text'"), "text")
        self.assertEqual(evaluate("3"), 3.0)

    def test_comparison_stringsIgnoreCaseAndMixedTypesCompareAsNumbers(self):
        self.assertTrue(evaluate("github.event_name == 'PUSH'"))
        self.assertTrue(evaluate("'2' == 2"))
        self.assertTrue(evaluate("matrix.shard > 1"))
        self.assertTrue(evaluate("null == 0"))
        self.assertFalse(evaluate("'a' == 0"))

    def test_andOr_returnOperandsAsGitHubDoes(self):
        self.assertEqual(evaluate("'' || 'fallback'"), "fallback")
        self.assertEqual(evaluate("'x' && 'y'"), "y")
        self.assertEqual(evaluate("0 && 'y'"), 0.0)
        self.assertTrue(evaluate("!(1 == 2) && (true || false)"))

    def test_propertyPaths_dotAndIndex(self):
        self.assertEqual(evaluate("steps.first.outputs.seen"), "yes")
        self.assertEqual(evaluate("steps['first'].outcome"), "success")
        self.assertEqual(evaluate("env.LEVEL"), "job")

    def test_anUnsetStepOutput_readsEmpty_butATypoIsAnError(self):
        self.assertEqual(evaluate("steps.first.outputs.other"), "")
        with self.assertRaisesRegex(Unsupported, "steps.second is not defined"):
            evaluate("steps.second.outputs.seen")
        with self.assertRaisesRegex(Unsupported, "github.actor is not defined"):
            evaluate("github.actor")

    def test_unknownContextsAndFunctions_areUnsupported(self):
        with self.assertRaisesRegex(Unsupported, "the context 'secrets'"):
            evaluate("secrets.TOKEN")
        with self.assertRaisesRegex(Unsupported, r"the function toJSON\(\)"):
            evaluate("toJSON(github)")
        with self.assertRaisesRegex(Unsupported, "unexpected"):
            evaluate("1 2")

    def test_statusFunctions_inAStep_followTheJobsStatus(self):
        self.assertTrue(evaluate("success()"))
        self.assertFalse(evaluate("failure()"))
        failed = {"status": "failure"}
        self.assertFalse(evaluate("success()", job=failed))
        self.assertTrue(evaluate("failure()", job=failed))
        self.assertTrue(evaluate("always()", job=failed))
        self.assertFalse(evaluate("cancelled()", job=failed))

    def test_statusFunctions_withAGivenStatus_answerFromIt(self):
        status = Status(success=False, failure=True)
        self.assertFalse(evaluate("success()", status))
        self.assertTrue(evaluate("failure()", status))


class InterpolationTests(unittest.TestCase):
    def test_interpolate_rendersAsGitHubDoes(self):
        self.assertEqual(interpolate("shard ${{ matrix.shard }} of ${{ 4 }}", context()),
                         "shard 2 of 4")
        self.assertEqual(interpolate("${{ true }}/${{ null }}/${{ 1.5 }}", context()),
                         "true//1.5")
        self.assertEqual(interpolate(False, context()), "false")
        self.assertEqual(render({"a": 1}), '{"a": 1}')

    def test_conditionText_impliesSuccessWithoutAStatusFunction(self):
        self.assertEqual(condition_text(None), "success()")
        self.assertEqual(condition_text("${{ env.LEVEL == 'job' }}"),
                         "success() && ( env.LEVEL == 'job' )")
        self.assertEqual(condition_text("always() && true"), "always() && true")

    def test_condition_failedJob_skipsUnlessAStatusFunctionSaysOtherwise(self):
        failed = context(job={"status": "failure"})
        self.assertFalse(condition("env.LEVEL == 'job'", failed))
        self.assertTrue(condition("failure() && env.LEVEL == 'job'", failed))
        self.assertTrue(condition(True, context()))


class HashFilesTests(unittest.TestCase):
    def test_hashFiles_isStableOverMatchesAndEmptyForNone(self):
        with tempfile.TemporaryDirectory() as workspace:
            for name, text in (("Package.swift", "a"), ("Sources/x.swift", "b")):
                os.makedirs(os.path.dirname(os.path.join(workspace, name)), exist_ok=True)
                with open(os.path.join(workspace, name), "w") as handle:
                    handle.write(text)
            one = hash_files(workspace, ["Package.swift", "**/*.swift"])
            self.assertEqual(len(one), 64)
            self.assertEqual(one, hash_files(workspace, ["**/*.swift"]))
            self.assertNotEqual(one, hash_files(workspace, ["Package.swift"]))
            self.assertEqual(hash_files(workspace, ["missing"]), "")


class NeedsContextTests(unittest.TestCase):
    def test_needsContext_resultAndOutputs_andAJobNotNeededIsAnError(self):
        needs = {"build": {"result": "success", "outputs": {"version": "1.2"}}}
        self.assertEqual(evaluate("needs.build.outputs.version", needs=needs), "1.2")
        self.assertTrue(evaluate("needs.build.result == 'success'", needs=needs))
        with self.assertRaisesRegex(Unsupported, "the job does not need 'test'"):
            evaluate("needs.test.result", needs=needs)
        with self.assertRaisesRegex(Unsupported, "needs.build.outputs.other is not defined"):
            evaluate("needs.build.outputs.other", needs=needs)


if __name__ == "__main__":
    unittest.main()
