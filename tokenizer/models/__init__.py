"""The models BPE Lab knows: their records (``registry``), their files (``fetch``,
``provision``), building their Tokenizers (``pretrained.load_encoding``) and their
chat formats (``chat``)."""
