module.exports = (name) => 'hello, ' + name;
