#!/usr/bin/env bash
# The README's curl examples as one script, against a running example app:
#   EXAMPLE_SEED=0 EXAMPLE_ADMIN_TOKEN=demo-admin PORT=3123 npm start   (in another terminal; DB_DRIVER=sql for PostgreSQL)
#   bash docs/curl-examples.sh
set -u
API=${API:-http://localhost:3123/api/v1}
JSON='Content-Type: application/json'
AUTH="Authorization: Bearer ${EXAMPLE_ADMIN_TOKEN:-demo-admin}"
# the first id of a response, quoted on MongoDB ("6b02...") and bare on PostgreSQL (1)
first_id() { grep -oE '"id":("[0-9a-f]{24}"|[0-9]+)' | head -1 | cut -d: -f2; }
show() { echo; echo "# $1"; }

show "health"
curl -s $API/health

show "a category, then two products in one all-or-nothing request"
CAT=$(curl -s -H "$AUTH" -X POST $API/categories -H "$JSON" -d '{"name":"Laptops"}' | first_id)
curl -s -H "$AUTH" -X POST $API/products -H "$JSON" -d "{\"product\":[
  {\"name\":\"Ultrabook 13\",\"sku\":\"LAP-1\",\"price\":1299,\"status\":\"active\",\"category_id\":$CAT},
  {\"name\":\"Budget 15\",\"sku\":\"LAP-2\",\"price\":499,\"category_id\":$CAT}]}"
PRODUCT=$(curl -s -H "$AUTH" -G $API/products/first --data-urlencode 'attr={"sku":"LAP-1"}' | first_id)
curl -s -H "$AUTH" -X POST $API/reviews -H "$JSON" -d "{\"product_id\":$PRODUCT,\"rating\":5,\"comment\":\"Fast.\"}" >/dev/null

show "a filter tree: price >= 400 AND (active OR name ilike %budget%) AND a category named Lap%"
curl -s -H "$AUTH" -G $API/products \
  --data-urlencode 'oper={"and":["price|>=|400",{"or":["status|=|active","name|ilike|%budget%"]}],"category":{"and":["name|like|Lap%"]}}' \
  --data-urlencode 'select=name,price' --data-urlencode 'orderby=[{"price":"desc"}]'

show "eager loading: the category (two columns) and the reviews, only products that have a 5-star review"
curl -s -H "$AUTH" -G $API/products --data-urlencode 'relations=category:name,reviews' \
  --data-urlencode 'oper={"reviews":{"and":["rating|=|5"]}}' --data-urlencode 'select=name'

show "offset pagination"
curl -s -H "$AUTH" -G $API/products --data-urlencode 'pagination={"page":2,"pageSize":1}' --data-urlencode 'select=name'

show "cursor pagination (pass next_cursor back as pagination.cursor)"
curl -s -H "$AUTH" -G $API/products --data-urlencode 'pagination={"infinity":true,"pageSize":1}' --data-urlencode 'select=name' --data-urlencode 'orderby={"price":"asc"}'

show "update one field"
curl -s -H "$AUTH" -X PATCH $API/products/${PRODUCT//\"/} -H "$JSON" -d '{"price":1199}'

show "errors: a duplicate sku (409), a bad payload (422), an unknown field (400), an absent id (404)"
curl -s -H "$AUTH" -X POST $API/products -H "$JSON" -d '{"name":"Copy","sku":"LAP-1","price":1}'; echo
curl -s -H "$AUTH" -X POST $API/products -H "$JSON" -d '{"name":"","price":-1}'; echo
curl -s -H "$AUTH" -G $API/products --data-urlencode 'oper={"and":["colour|=|red"]}'; echo
curl -s -H "$AUTH" $API/products/does-not-exist; echo
