"""Maps settings.ini, the project's one source of metadata, onto setuptools."""
from configparser import ConfigParser
from pathlib import Path

import setuptools

here = Path(__file__).parent
config = ConfigParser(delimiters=["="])
config.read(here / "settings.ini", encoding="utf-8")
cfg = config["DEFAULT"]

licenses = {"apache2": ("Apache Software License 2.0", "OSI Approved :: Apache Software License")}
statuses = ["1 - Planning", "2 - Pre-Alpha", "3 - Alpha", "4 - Beta", "5 - Production/Stable", "6 - Mature", "7 - Inactive"]
py_versions = ["3.10", "3.11", "3.12", "3.13"]
min_python = cfg["min_python"]
license_name, license_classifier = licenses[cfg["license"]]

setuptools.setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    long_description=(here / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    author=cfg["author"],
    author_email=cfg["author_email"],
    license=license_name,
    url=cfg["git_url"],
    keywords=cfg["keywords"].split(),
    classifiers=[
        "Development Status :: " + statuses[int(cfg["status"]) - 1],
        "Intended Audience :: " + cfg["audience"].title(),
        "Natural Language :: " + cfg["language"].title(),
        "License :: " + license_classifier,
    ] + ["Programming Language :: Python :: " + v for v in py_versions[py_versions.index(min_python):]],
    python_requires=">=" + min_python,
    packages=setuptools.find_packages(include=[cfg["lib_path"], cfg["lib_path"] + ".*"]),
    package_data={cfg["lib_path"]: ["data/*", "data/**/*"]},
    include_package_data=True,
    install_requires=cfg["requirements"].split(),
    # every `<name>_requirements` line of settings.ini but the runtime one is the extra `<name>`
    extras_require={key[:-len("_requirements")]: cfg[key].split()
                    for key in cfg if key.endswith("_requirements") and key != "requirements"},
    entry_points={
        "console_scripts": cfg["console_scripts"].split(),
        "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"],
    },
    zip_safe=False,
)
