// Owns the small fixed text from which factory tokenizers learn their merges (code and prose, so that common
// programming words become single tokens). Changing it changes every factory model's vocabulary.

export const FACTORY_CORPUS = `
def add(a, b):
    """Return the sum of a and b."""
    return a + b

def fizzbuzz(n):
    for i in range(1, n + 1):
        if i % 15 == 0:
            print("FizzBuzz")
        elif i % 3 == 0:
            print("Fizz")
        elif i % 5 == 0:
            print("Buzz")
        else:
            print(i)

class Stack:
    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        if not self.items:
            raise IndexError("pop from empty stack")
        return self.items.pop()

import os
import sys
from typing import List, Optional

def read_lines(path: str) -> List[str]:
    with open(path, "r", encoding="utf-8") as f:
        return [line.rstrip("\\n") for line in f]

def test_add():
    assert add(2, 3) == 5
    assert add(-1, 1) == 0

export function sum(values: number[]): number {
    let total = 0;
    for (const value of values) total += value;
    return total;
}

const result = await fetchData(url);
if (result === null || result === undefined) {
    throw new Error("no result");
}
console.log(JSON.stringify(result, null, 2));

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

The agent reads the file, edits the function, runs the tests and reports what it changed.
The tests passed. The test failed because the function returned the wrong value.
Read the file first, then make the smallest change that fixes the failing test.
I will run the tests to check that the change works. All tests passed.
`;
