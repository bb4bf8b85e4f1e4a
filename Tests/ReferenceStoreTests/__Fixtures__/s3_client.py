"""boto3 on the S3 server the tests start, for S3StoreTests: what AWS's own SDK writes and reads.

    python s3_client.py ENDPOINT create-bucket BUCKET
    python s3_client.py ENDPOINT create-writer         (prints "ACCESS_KEY_ID SECRET_ACCESS_KEY")
    python s3_client.py ENDPOINT put BUCKET KEY FILE
    python s3_client.py ENDPOINT get BUCKET KEY FILE
    python s3_client.py ENDPOINT list BUCKET PREFIX    (one key a line)

The keys come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; the region is us-east-1.
create-writer makes an IAM user allowed every S3 action and prints its new keys: with moto's
INITIAL_NO_AUTH_ACTION_COUNT, the server then checks each request's signature against the one
botocore computes with them, and refuses a wrong one.
"""

import json

import sys

import boto3
from botocore.config import Config

endpoint, command, *arguments = sys.argv[1:]
s3 = boto3.client(
    "s3",
    endpoint_url=endpoint,
    region_name="us-east-1",
    config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"),
)
if command == "create-writer":
    iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1")
    iam.create_user(UserName="writer")
    policy = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
    }
    iam.put_user_policy(
        UserName="writer", PolicyName="s3", PolicyDocument=json.dumps(policy)
    )
    key = iam.create_access_key(UserName="writer")["AccessKey"]
    print(key["AccessKeyId"], key["SecretAccessKey"])
elif command == "create-bucket":
    s3.create_bucket(Bucket=arguments[0])
elif command == "put":
    bucket, key, path = arguments
    with open(path, "rb") as file:
        s3.put_object(Bucket=bucket, Key=key, Body=file.read())
elif command == "get":
    bucket, key, path = arguments
    with open(path, "wb") as file:
        file.write(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
elif command == "list":
    bucket, prefix = arguments
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for item in page.get("Contents", []):
            print(item["Key"])
else:
    sys.exit(f"unknown command {command}")
