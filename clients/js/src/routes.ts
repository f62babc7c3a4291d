// Which SDK method calls which API route. test/routes.test.mjs checks that every (method, path) of the
// server's /openapi.json is in this table, that each name is a method of Engram, and that calling the
// method sends that request: a new route without a client method fails the tests.

export const ROUTES = {
  health: "GET /health",
  openapi: "GET /openapi.json",
  add: "POST /v1/memories",
  listPage: "GET /v1/memories",
  deleteAll: "DELETE /v1/memories",
  importMemories: "POST /v1/memories/import",
  search: "POST /v1/memories/search",
  get: "GET /v1/memories/{memory_id}",
  update: "PATCH /v1/memories/{memory_id}",
  delete: "DELETE /v1/memories/{memory_id}",
  history: "GET /v1/memories/{memory_id}/history",
  task: "GET /v1/tasks/{task_id}",
  createAttachment: "POST /v1/attachments",
  attachment: "GET /v1/attachments/{attachment_id}",
  graph: "GET /v1/graph",
  entity: "GET /v1/graph/entities/{entity_id}",
  deleteRelation: "DELETE /v1/graph/relations/{relation_id}",
  users: "GET /v1/users",
  startMaintenance: "POST /v1/maintenance",
  maintenance: "GET /v1/maintenance/{execution_id}",
  usage: "GET /v1/usage",
  queueMetrics: "GET /v1/metrics/extraction-queue",
  chatCompletions: "POST /v1/chat/completions",
  getConfig: "GET /v1/config",
  putConfig: "PUT /v1/config",
  testPolicy: "POST /v1/config/policy/test",
} as const;

export type RouteName = keyof typeof ROUTES;
