// Importing a node file registers its type. Add one line per node file.
import "./start.js";
import "./end.js";
import "./answer.js";
import "./if-else.js";
import "./template-transform.js";
import "./variable-aggregator.js";
import "./list-operator.js";
import "./assigner.js";
import "./iteration.js";
import "./loop.js";
import "./llm.js";
import "./question-classifier.js";
import "./parameter-extractor.js";
import "./http-request.js";
import "./knowledge-retrieval.js";
import "./agent.js";
import "./code.js";
