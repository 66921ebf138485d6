#!/bin/sh
# Starts the coordinator with the configuration file baked into the image (or mounted over it) and the secrets the
# orchestrator passes as environment variables, so that no secret is written into a file:
#   LCC_S3_ACCESS_KEY_ID / LCC_S3_SECRET_ACCESS_KEY   static S3 keys (omit them to use the AWS default chain, e.g.
#                                                     an IAM role for the pod)
#   LCC_API_KEY_<NAME> / LCC_TOKEN_<NAME>             the x-api-key / bearer token of principal <name> (lower case)
# Any further arguments are passed on, e.g. --port 9200.
set -eu
config="${LCC_CONFIG:-/etc/lcc/coordinator.properties}"
set -- --config "$config" "$@"
if [ -n "${LCC_S3_ACCESS_KEY_ID:-}" ]; then
  set -- "$@" --s3.access-key-id "$LCC_S3_ACCESS_KEY_ID" --s3.secret-access-key "${LCC_S3_SECRET_ACCESS_KEY:?set with LCC_S3_ACCESS_KEY_ID}"
fi
for var in $(env | sed -n 's/^\(LCC_\(API_KEY\|TOKEN\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
  name=$(echo "$var" | sed 's/^LCC_\(API_KEY\|TOKEN\)_//' | tr 'A-Z_' 'a-z-')
  case "$var" in
    LCC_API_KEY_*) set -- "$@" "--auth.principals.$name.api-key" "$(printenv "$var")" ;;
    LCC_TOKEN_*) set -- "$@" "--auth.principals.$name.token" "$(printenv "$var")" ;;
  esac
done
exec java ${JAVA_OPTS:-} --add-opens=java.base/java.nio=ALL-UNNAMED -jar "${LCC_HOME:-/opt/lcc}/coordinator.jar" "$@"
