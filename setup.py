"""Packages for setuptools: every package under tfdebug/ found, plus resources/ as tfdebug.resources.

Everything else is in pyproject.toml. setuptools' finder cannot combine a found tree with a package
that `package-dir` maps from another folder, so the two are joined here.
"""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["tfdebug", "tfdebug.*"]) + ["tfdebug.resources", "tfdebug.resources.demo"])
