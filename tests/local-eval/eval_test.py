"""Checks of the eval's own scoring (run by scripts/test.sh; the eval itself is opt-in)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval as local_eval  # noqa: E402


class HasNumber(unittest.TestCase):
    def test_a_sentence_may_end_with_the_number(self):
        check = local_eval.has_number(3)
        for answer in ["There are 3 files.", "The count is 3.", "3", "(3)", "is 3, then"]:
            self.assertTrue(check(answer, None), answer)

    def test_another_number_holding_it_is_not_it(self):
        check = local_eval.has_number(3)
        for answer in ["13 files", "3.5", "version 1.3", "30", "33"]:
            self.assertFalse(check(answer, None), answer)


if __name__ == "__main__":
    unittest.main()
