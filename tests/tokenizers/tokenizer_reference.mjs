// Encodes a corpus with the official JavaScript implementation of Hugging Face
// tokenizers (@huggingface/tokenizers, "Tokenizers.js") and prints the ids as JSON, for
// tests/tokenizers/bpe_tokenizer_reference_test.cpp to compare with adarl's bpe_tokenizer.
// As a second opinion it also encodes with @lenml/tokenizers (a fork of transformers.js'
// tokenizer) and lists the strings on which the two JavaScript implementations differ.
//
// usage: node tokenizer_reference.mjs NPM_DIR TOKENIZER_DIR CORPUS.json
//   NPM_DIR        where scripts/setup.sh installed the packages (node_modules/ inside)
//   TOKENIZER_DIR  holds tokenizer.json and tokenizer_config.json
// output: {"implementation": "@huggingface/tokenizers@X", "second_opinion": {...},
//          "results": [{"ids": [...], "decoded": "...", "decoded_skip_special": "...",
//                       "is_nfc": true}, ...]}   (one result per corpus string, in order)
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, tokenizerDir, corpusPath] = process.argv.slice(2);
if (!corpusPath) {
  console.error("usage: node tokenizer_reference.mjs NPM_DIR TOKENIZER_DIR CORPUS.json");
  process.exit(2);
}
const modules = path.join(npmDir, "node_modules");
const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const version = (pkg) => readJson(path.join(modules, pkg, "package.json")).version;

const tokenizerJson = readJson(path.join(tokenizerDir, "tokenizer.json"));
const tokenizerConfig = readJson(path.join(tokenizerDir, "tokenizer_config.json"));
const corpus = readJson(corpusPath);

const hf = await import(
  pathToFileURL(path.join(modules, "@huggingface/tokenizers/dist/tokenizers.mjs")).href);
const tokenizer = new hf.Tokenizer(tokenizerJson, tokenizerConfig);

const results = corpus.map((text) => {
  const ids = tokenizer.encode(text, { add_special_tokens: false }).ids;
  // decode refuses an empty array (the empty string's ids): its text is "".
  const decode = (skip) => ids.length === 0 ? "" : tokenizer.decode(ids, { skip_special_tokens: skip });
  return {
    ids,
    decoded: decode(false),
    decoded_skip_special: decode(true),
    is_nfc: text.normalize("NFC") === text,
  };
});

let secondOpinion = { package: null, disagreements: [] };
const lenmlEntry = path.join(modules, "@lenml/tokenizers/dist/main.mjs");
if (fs.existsSync(lenmlEntry)) {
  const lenml = await import(pathToFileURL(lenmlEntry).href);
  const other = lenml.TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizerJson,
                                                       tokenizerConfig });
  secondOpinion.package = "@lenml/tokenizers@" + version("@lenml/tokenizers");
  corpus.forEach((text, i) => {
    const ids = other.encode(text, { add_special_tokens: false });
    if (JSON.stringify(ids) !== JSON.stringify(results[i].ids)) {
      secondOpinion.disagreements.push(i);
    }
  });
}

process.stdout.write(JSON.stringify({
  implementation: "@huggingface/tokenizers@" + version("@huggingface/tokenizers"),
  second_opinion: secondOpinion,
  results,
}) + "\n");
