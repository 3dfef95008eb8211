// Talks to ibid serve's OpenAI-compatible endpoint with the official
// openai package, as a Node chat client would, and prints what it got as
// one JSON object (headless/chat_node_test.go checks it).
//
//   node chat.mjs BASE_URL API_KEY MODEL QUESTION
import OpenAI from 'openai';

const [baseURL, apiKey, model, question] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
const messages = [{ role: 'user', content: question }];
const out = {};

const models = await client.models.list();
out.models = models.data.map((m) => m.id);

const whole = await client.chat.completions.create({ model, messages });
out.whole = {
  content: whole.choices[0].message.content,
  finish: whole.choices[0].finish_reason,
  citations: whole.citations,
};

const stream = await client.chat.completions.create({ model, messages, stream: true });
const streamed = { content: '', chunks: 0, sources: [], citations: null, finish: null };
for await (const chunk of stream) {
  streamed.chunks++;
  const choice = chunk.choices[0];
  streamed.content += choice?.delta?.content ?? '';
  if (chunk.event?.type === 'source') {
    streamed.sources.push(chunk.event.data.metadata[0].source);
  }
  if (choice?.finish_reason) {
    streamed.finish = choice.finish_reason;
    streamed.citations = chunk.citations;
  }
}
out.streamed = streamed;

try {
  await client.chat.completions.create({ model: 'gpt-4o', messages });
  out.error = null;
} catch (err) {
  out.error = { status: err.status, code: err.code, message: err.message };
}

console.log(JSON.stringify(out));
